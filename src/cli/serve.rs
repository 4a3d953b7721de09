//! `slmcode serve`: the OpenAI-compatible proxy ([`slmcode::serve`]) on the command line.
//! Resolves the settings, negotiates with the endpoint once, listens, says where on stderr,
//! writes the state file `slmcode status` reads, prints one line per request on stderr (a JSON
//! object per line with `--json`), and stops cleanly on SIGINT or SIGTERM (exit 0).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::anyhow;
use slmcode::call::CallContext;
use slmcode::config::{Environment, Key, Secret};
use slmcode::serve::{LogRecord, Proxy, ProxyOptions, ServeState, remove_state, write_state};

use super::exit::{CliError, CommandResult, Exit};
use super::printer::Printer;
use super::probe::{negotiate, options, target_from};
use super::settings_args::{self, SettingsArgs};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where to listen, such as 127.0.0.1:8090 (port 0 picks a free one) [default: the
    /// serve_listen setting, 127.0.0.1:8090]
    #[arg(long, value_name = "ADDRESS")]
    listen: Option<String>,

    /// The NAME of the environment variable holding the key clients must send as
    /// `Authorization: Bearer KEY` [default: the serve_key_env setting; unset: no key]
    #[arg(long, value_name = "VARIABLE")]
    key_env: Option<String>,

    /// How many requests are handled at once; one more is answered 503 [default: the
    /// serve_max_connections setting, 64]
    #[arg(long, value_name = "N")]
    max_connections: Option<String>,

    /// When every attempt failed, answer 200 with the last answer's text as ordinary content,
    /// the failure in the `slmcode` field and the `x-slmcode-failure` header, instead of a 422
    /// [default: the text_fallback setting, false]
    #[arg(long, value_name = "BOOL")]
    text_fallback: Option<String>,

    /// Put the content in the log lines: each request's last message and the call path's
    /// answer, 500 characters at most (never the key). Off by default: prompts and answers
    /// may hold what a log should not.
    #[arg(long)]
    log_content: bool,

    #[command(flatten)]
    settings: SettingsArgs,
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let mut settings_args = args.settings.clone();
    settings_args.extra = vec![
        (Key::ServeListen, args.listen.clone()),
        (Key::ServeKeyEnv, args.key_env.clone()),
        (Key::ServeMaxConnections, args.max_connections.clone()),
        (Key::TextFallback, args.text_fallback.clone()),
    ];
    let resolved = settings_args::resolve(&settings_args, printer)?;
    let settings = resolved.settings.clone();
    let key = proxy_key(settings.serve_key_env.as_deref())?;
    let (target, _) = target_from(&resolved)?;
    let negotiate_options = options(&resolved, false, true);
    let negotiation = negotiate(&target, &negotiate_options, printer);
    for warning in &negotiation.warnings {
        printer.warn(warning);
    }
    let mechanism = negotiation.capabilities.mechanism;
    let endpoint = target.endpoint.to_string();
    let context = CallContext::new(resolved.settings.clone(), target, negotiation)
        .with_cache(negotiate_options.cache.clone());
    let json = printer.json();
    let log_printer = printer.clone();
    let logger = Arc::new(move |record: &LogRecord| {
        if json {
            log_printer.log(&serde_json::to_string(record).unwrap_or_default());
        } else {
            log_printer.log(&format!("slmcode serve: {record}"));
        }
    });
    let mut options = ProxyOptions::from_settings(&settings);
    options.key = key;
    options.log_content = args.log_content;
    let proxy = Proxy::bind(context, options, logger).map_err(|error| {
        CliError::new(Exit::Failure, error)
            .with_hint("choose another address with --listen (port 0 picks a free one)")
    })?;
    let address = proxy.local_addr();
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, stop.clone())
            .map_err(|error| anyhow!("cannot handle signal {signal}: {error}"))?;
    }
    let pid = std::process::id();
    let state_dir = resolved
        .config_path
        .parent()
        .map(std::path::Path::to_path_buf);
    if let Some(dir) = &state_dir {
        let state = ServeState {
            address: address.to_string(),
            pid,
            started_at: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |since| since.as_secs()),
            endpoint: endpoint.clone(),
        };
        if let Err(error) = write_state(dir, &state) {
            printer.warn(&format!(
                "`slmcode status` will not see this proxy: cannot write its state file: {error}"
            ));
        }
    }
    if !address.ip().is_loopback() {
        printer.warn(&format!(
            "listening on {address}, which other machines may reach: anyone who can connect uses the endpoint with its key{}",
            if settings.serve_key_env.is_some() {
                ""
            } else {
                " (set serve_key_env to ask for a key)"
            }
        ));
    }
    printer.log(&format!(
        "slmcode serve: listening on http://{address}/v1, forwarding to {endpoint} (mechanism {mechanism}); stop with Ctrl-C"
    ));
    proxy.run(&stop);
    if let Some(dir) = &state_dir {
        remove_state(dir, pid);
    }
    let counters = proxy.counters();
    printer.log(&format!(
        "slmcode serve: stopped after {} requests ({} passthrough, {} structured, {} tools, {} failed, {} refused)",
        counters.requests,
        counters.passthrough,
        counters.structured,
        counters.tools,
        counters.failed,
        counters.refused
    ));
    Ok(Exit::Success)
}

/// The proxy's key, from the variable `serve_key_env` names; a named variable that is unset or
/// empty is an error, not an open proxy.
fn proxy_key(variable: Option<&str>) -> Result<Option<Secret>, CliError> {
    let Some(variable) = variable else {
        return Ok(None);
    };
    match Environment::from_process().get(variable) {
        Some(key) if !key.trim().is_empty() => Ok(Some(Secret::new(key.trim()))),
        _ => Err(CliError::new(
            Exit::Failure,
            anyhow!("serve_key_env names {variable}, which is not set or empty"),
        )
        .with_hint(format!(
            "export {variable}=<the key clients send>, or unset serve_key_env"
        ))),
    }
}
