//! The README's Settings section is held to the registries it documents: every key row,
//! every readiness check row and every environment variable.

/// The README's row for a key, as the registry describes it.
fn readme_key_row(spec: &slmcode::config::KeySpec) -> String {
    let default = if spec.default.starts_with('(') {
        spec.default.to_owned()
    } else {
        format!("`{}`", spec.default)
    };
    format!(
        "| `{}` | {} | {default} | `{}` | {} |",
        spec.name, spec.accepted, spec.environment, spec.doc
    )
}

/// The README's row for a readiness check.
fn readme_check_row(spec: &slmcode::config::readiness::CheckSpec) -> String {
    format!(
        "| `{}` | {} | {} | {} |",
        spec.name, spec.points, spec.passes_when, spec.why
    )
}

#[test]
fn the_readme_documents_every_key_variable_and_check() {
    let readme = std::fs::read_to_string(crate::util::repo_root().join("README.md")).unwrap();
    let mut missing = Vec::new();
    let rows = slmcode::config::KEYS.iter().map(readme_key_row).chain(
        slmcode::config::readiness::CHECKS
            .iter()
            .map(readme_check_row),
    );
    for row in rows {
        if !readme.lines().any(|line| line == row) {
            missing.push(row);
        }
    }
    for variable in slmcode::config::environment_variables() {
        if !readme.contains(&format!("`{}`", variable.name)) {
            missing.push(format!("the variable {}", variable.name));
        }
    }
    assert!(
        missing.is_empty(),
        "README.md's Settings section is out of date; these lines are expected:\n{}",
        missing.join("\n")
    );
}
