//! What `slmcode serve` adds to a request, against the same request sent straight to the same
//! server in the same run, with the engine emulator (tests/support/emulator.rs, llama-server's
//! profile) upstream: the latency of a plain request and of a json_schema request (p50 and p99
//! of the pairs, sent alternately), and requests per second through the proxy and straight,
//! with a few clients at once. Figures: `bench/README.md`, section "The proxy".
//!
//! `cargo bench --bench serve` (or `-- ROUNDS CLIENTS SECONDS`, default 400 8 5).

#[path = "../tests/support/emulator.rs"]
mod emulator;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use slmcode::backends::{NegotiateOptions, Negotiator};
use slmcode::call::CallContext;
use slmcode::config::Settings;
use slmcode::serve::{Proxy, ProxyOptions};

use emulator::{Emulator, Profile};

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .new_agent()
}

fn send(agent: &ureq::Agent, url: &str, body: &[u8]) -> Duration {
    let started = Instant::now();
    let mut response = agent
        .post(url)
        .content_type("application/json")
        .send(body)
        .expect("a request");
    let text = response.body_mut().read_to_string().expect("an answer");
    let elapsed = started.elapsed();
    assert_eq!(response.status().as_u16(), 200, "{text}");
    elapsed
}

fn percentile(sorted: &[Duration], at: f64) -> Duration {
    let index = ((sorted.len() - 1) as f64 * at).round() as usize;
    sorted[index]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn main() {
    let numbers: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|arg| arg.parse().ok())
        .collect();
    let rounds = numbers.first().copied().unwrap_or(400) as usize;
    let clients = numbers.get(1).copied().unwrap_or(8) as usize;
    let seconds = numbers.get(2).copied().unwrap_or(5);

    let emulator = Emulator::start(Profile::llama_server());
    let mut settings = Settings::default();
    settings.provider = slmcode::config::Provider::LlamaCpp;
    settings.endpoint = Some(emulator.base_url());
    settings.record_stats = false;
    let mut options = NegotiateOptions::from_settings(&settings);
    options.cache = None;
    let context = CallContext::negotiate(&settings, Negotiator::global(), &options)
        .expect("the emulator's target");
    let mut proxy_options = ProxyOptions::from_settings(&settings);
    proxy_options.listen = ([127, 0, 0, 1], 0).into();
    proxy_options.max_connections = 256;
    let proxy = Proxy::bind(context, proxy_options, Arc::new(|_| {})).expect("the proxy listens");
    let through = format!("http://{}/v1/chat/completions", proxy.local_addr());
    let straight = format!("{}/chat/completions", emulator.base_url());
    let stop = Arc::new(AtomicBool::new(false));
    let proxy = Arc::new(proxy);
    let running = {
        let (proxy, stop) = (proxy.clone(), stop.clone());
        std::thread::spawn(move || proxy.run(&stop))
    };

    let schema = json!({"type": "object", "properties": {"name": {"type": "string"},
        "age": {"type": "integer"}}, "required": ["name", "age"], "additionalProperties": false});
    let plain = json!({"messages": [{"role": "user", "content": "Say hello."}]});
    let structured = json!({"messages": [{"role": "user", "content": "Name a person."}],
        "response_format": {"type": "json_schema",
            "json_schema": {"name": "person", "schema": schema, "strict": true}}});
    println!("rounds {rounds}, clients {clients}, {seconds} s each for the rate");
    println!(
        "| request | straight p50 | through p50 | added p50 | straight p99 | through p99 | added p99 |"
    );
    println!("|---|---|---|---|---|---|---|");
    let client = agent();
    for (name, body) in [("plain", &plain), ("json_schema", &structured)] {
        let bytes = body.to_string().into_bytes();
        // Warm both paths (connections, the negotiated wire form, compiled schemas).
        for _ in 0..20 {
            send(&client, &straight, &bytes);
            send(&client, &through, &bytes);
        }
        let mut direct = Vec::with_capacity(rounds);
        let mut proxied = Vec::with_capacity(rounds);
        for round in 0..rounds {
            // Alternate which goes first, so neither always meets a warmer server.
            if round % 2 == 0 {
                direct.push(send(&client, &straight, &bytes));
                proxied.push(send(&client, &through, &bytes));
            } else {
                proxied.push(send(&client, &through, &bytes));
                direct.push(send(&client, &straight, &bytes));
            }
        }
        direct.sort();
        proxied.sort();
        let (d50, p50) = (percentile(&direct, 0.5), percentile(&proxied, 0.5));
        let (d99, p99) = (percentile(&direct, 0.99), percentile(&proxied, 0.99));
        println!(
            "| {name} | {:.3} ms | {:.3} ms | {:+.3} ms ({:.2}x) | {:.3} ms | {:.3} ms | {:+.3} ms ({:.2}x) |",
            ms(d50),
            ms(p50),
            ms(p50) - ms(d50),
            ms(p50) / ms(d50),
            ms(d99),
            ms(p99),
            ms(p99) - ms(d99),
            ms(p99) / ms(d99)
        );
    }

    println!();
    println!("| request | straight req/s | through req/s | ratio |");
    println!("|---|---|---|---|");
    for (name, body) in [("plain", &plain), ("json_schema", &structured)] {
        let bytes = Arc::new(body.to_string().into_bytes());
        let rate = |url: &str| {
            let done = Arc::new(AtomicU64::new(0));
            let until = Instant::now() + Duration::from_secs(seconds);
            let threads: Vec<_> = (0..clients)
                .map(|_| {
                    let (done, bytes, url) = (done.clone(), bytes.clone(), url.to_owned());
                    std::thread::spawn(move || {
                        let agent = agent();
                        while Instant::now() < until {
                            send(&agent, &url, &bytes);
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                    })
                })
                .collect();
            for thread in threads {
                thread.join().unwrap();
            }
            done.load(Ordering::Relaxed) as f64 / seconds as f64
        };
        let direct = rate(&straight);
        let proxied = rate(&through);
        println!(
            "| {name} | {direct:.0} | {proxied:.0} | {:.2} |",
            proxied / direct
        );
    }
    stop.store(true, Ordering::SeqCst);
    running.join().unwrap();
    let counters: Value = serde_json::to_value(proxy.counters()).unwrap();
    println!();
    println!("proxy counters: {counters}");
}
