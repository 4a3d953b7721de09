//! The `--verbose` footer of `generate`: how often the answer was asked for again,
//! and why, and what degraded, in one line on stderr.
//!
//! `Retries: 1 (prose) · Degraded: json_schema_strict → json_object (400)`

use slmcode::call::CallMeta;
use slmcode::repair::Rung;

/// The footer line for `meta`.
pub fn footer(meta: &CallMeta) -> String {
    let mut line = format!("Retries: {}", meta.retry_count);
    if !meta.reasks.is_empty() {
        let classes: Vec<&str> = meta
            .reasks
            .iter()
            .map(|reask| reask.class.as_str())
            .collect();
        line.push_str(&format!(" ({})", classes.join(", ")));
    }
    if meta.transport_retries > 0 {
        line.push_str(&format!(" · Transport retries: {}", meta.transport_retries));
    }
    line.push_str(" · Degraded: ");
    line.push_str(&degraded(meta));
    line
}

fn degraded(meta: &CallMeta) -> String {
    if !meta.demotions.is_empty() {
        let mut steps: Vec<String> = meta
            .demotions
            .iter()
            .map(|demotion| demotion.form.to_string())
            .collect();
        steps.push(match meta.wire_form {
            Some(form) => form.to_string(),
            None => meta.mechanism.to_string(),
        });
        let why: Vec<String> = meta
            .demotions
            .iter()
            .map(|demotion| match demotion.status {
                Some(status) => status.to_string(),
                None => "not enforced".to_owned(),
            })
            .collect();
        return format!("{} ({})", steps.join(" → "), why.join(", "));
    }
    match (meta.degrade_reason, meta.repair_rung) {
        (None, _) => "no".to_owned(),
        (Some(reason), Some(rung)) if rung != Rung::None => {
            format!("{reason} (repair rung {rung})")
        }
        (Some(reason), _) => reason.to_string(),
    }
}
