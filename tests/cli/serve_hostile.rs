//! `slmcode serve` against hostile clients and a failing upstream: a huge body, a slow client,
//! a client that closes the connection mid-stream, one that leaves while its streamed structured
//! answer is being made, 50 requests at once, more than the limit (the counters still answered),
//! an upstream that stalls mid-stream. After each, the proxy still answers.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use crate::emulator::{Emulator, Fault, Profile};
use crate::serve::{Served, agent, post};
use crate::util::slm_for;

fn plain() -> Value {
    json!({"messages": [{"role": "user", "content": "hi"}]})
}

/// The proxy still relays a plain request.
fn still_serves(served: &Served) {
    let (status, _, text) = post(&served.url("/v1/chat/completions"), &plain(), None);
    assert_eq!(status, 200, "the proxy still answers: {text}");
}

fn connect(served: &Served) -> TcpStream {
    let stream = TcpStream::connect(&served.address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream
}

/// Reads the status line of an answer on `stream`.
fn status_of(stream: &mut TcpStream) -> u16 {
    let mut head = Vec::new();
    let mut byte = [0; 1];
    while !head.ends_with(b"\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
    }
    let line = String::from_utf8_lossy(&head);
    line.split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0)
}

#[test]
fn a_huge_body_is_refused_with_413_before_it_is_read() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    let probed = emulator.chat_count();
    // A declared length past the limit: refused at once, the body never sent.
    let mut stream = connect(&served);
    write!(
        stream,
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{{\"messages\":",
        1u64 << 40
    )
    .unwrap();
    assert_eq!(status_of(&mut stream), 413);
    drop(stream);
    // A declared length just past the limit, the whole body sent: refused all the same.
    let mut stream = connect(&served);
    let size = 16 * 1024 * 1024 + 1;
    write!(
        stream,
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {size}\r\n\r\n"
    )
    .unwrap();
    let _ = stream.write_all(&vec![b' '; size]);
    assert_eq!(status_of(&mut stream), 413);
    drop(stream);
    // A body in chunks has no length to check first: refused (OpenAI clients send a length).
    let mut stream = connect(&served);
    stream
        .write_all(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffff\r\n")
        .unwrap();
    assert_eq!(status_of(&mut stream), 411);
    drop(stream);
    // A head without end.
    let mut stream = connect(&served);
    stream
        .write_all(b"POST /v1/chat/completions HTTP/1.1\r\n")
        .unwrap();
    let filler = format!("X-Filler: {}\r\n", "a".repeat(1000));
    for _ in 0..70 {
        if stream.write_all(filler.as_bytes()).is_err() {
            break;
        }
    }
    assert_eq!(status_of(&mut stream), 431);
    drop(stream);
    assert_eq!(emulator.chat_count(), probed, "nothing reached the engine");
    served.wait_for_line("413 refused class=request_too_large");
    still_serves(&served);
}

#[test]
fn a_slow_client_does_not_hold_up_the_others() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    // Half a request line, then nothing; and a body promised and never sent.
    let mut half_line = connect(&served);
    half_line.write_all(b"POST /v1/chat/comp").unwrap();
    let mut half_body = connect(&served);
    half_body
        .write_all(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"mess",
        )
        .unwrap();
    for _ in 0..3 {
        still_serves(&served);
    }
    let status = agent().get(served.url("/slmcode/status")).call().unwrap();
    assert_eq!(status.status().as_u16(), 200);
    drop(half_line);
    drop(half_body);
    still_serves(&served);
}

#[test]
fn a_client_that_closes_mid_stream_stops_the_upstream_stream_and_not_the_proxy() {
    let emulator = Emulator::start(Profile::llama_server());
    emulator.token_delay(Duration::from_millis(30));
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    let body = json!({"stream": true, "messages": [{"role": "user", "content": "hi"}]}).to_string();
    let mut stream = connect(&served);
    write!(
        stream,
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    assert_eq!(status_of(&mut stream), 200);
    let mut some = [0; 256];
    let _ = stream.read(&mut some).unwrap();
    drop(stream);
    // The proxy's next write fails, it drops the upstream connection, the engine stops.
    let streams = emulator.wait_for_streams(1);
    assert_eq!(streams.len(), 1);
    assert!(
        !streams[0].completed,
        "the upstream stream was cut: {streams:?}"
    );
    assert!(streams[0].chunks < streams[0].tokens);
    served.wait_for_line("200 passthrough stream class=client_closed");
    emulator.token_delay(Duration::ZERO);
    still_serves(&served);
}

#[test]
fn a_client_that_leaves_while_a_streamed_answer_is_made_does_not_stop_the_proxy() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    emulator.faults([Fault::Delay(Duration::from_secs(3))]);
    let body = crate::serve_structured::structured_body(true).to_string();
    let mut stream = connect(&served);
    stream
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    write!(
        stream,
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // The head comes at once, long before the answer; the client leaves then.
    assert_eq!(status_of(&mut stream), 200);
    drop(stream);
    // The call runs to its end, its answer finds no one, and the proxy goes on.
    served.wait_for_line(
        "200 structured stream mechanism=gbnf_grammar rung=none reasks=0 class=client_closed",
    );
    still_serves(&served);
    let mut response = agent().get(served.url("/slmcode/status")).call().unwrap();
    let counters: Value =
        serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(counters["in_flight"], 0, "{counters}");
}

#[test]
fn fifty_requests_at_once_are_all_answered() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    let url = served.url("/v1/chat/completions");
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let threads: Vec<_> = (0..50)
        .map(|index| {
            let url = url.clone();
            let body = if index % 2 == 0 {
                plain()
            } else {
                json!({"messages": [{"role": "user", "content": format!("number {index}")}],
                    "response_format": {"type": "json_schema", "json_schema": {"name": "n", "schema": schema}}})
            };
            std::thread::spawn(move || post(&url, &body, None).0)
        })
        .collect();
    let statuses: Vec<u16> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(statuses.iter().all(|status| *status == 200), "{statuses:?}");
    let counters: Value = serde_json::from_str(
        &agent()
            .get(served.url("/slmcode/status"))
            .call()
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(counters["passthrough"], 25);
    assert_eq!(counters["structured"], 25);
    assert_eq!(counters["succeeded"], 25);
    assert_eq!(
        counters["in_flight"], 0,
        "asking for the counters takes no slot"
    );
}

#[test]
fn one_request_past_the_limit_is_answered_503_at_once() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &["--max-connections", "1"]);
    emulator.always_delay(Duration::from_secs(2));
    let before = emulator.requests().len();
    let url = served.url("/v1/chat/completions");
    let first = std::thread::spawn(move || post(&url, &plain(), None).0);
    // Once the engine holds the first request, its slot is taken.
    for _ in 0..500 {
        if emulator.requests().len() > before {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let (status, headers, text) = post(&served.url("/v1/chat/completions"), &plain(), None);
    assert_eq!(status, 503, "{text}");
    assert_eq!(crate::serve::header(&headers, "retry-after"), Some("1"));
    assert_eq!(first.join().unwrap(), 200);
    emulator.always_delay(Duration::ZERO);
    served.wait_for_line("503 refused class=busy");
    still_serves(&served);
}

#[test]
fn the_counters_are_answered_while_every_slot_is_taken() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &["--max-connections", "1"]);
    emulator.always_delay(Duration::from_secs(4));
    let before = emulator.requests().len();
    let url = served.url("/v1/chat/completions");
    let first = std::thread::spawn(move || post(&url, &plain(), None).0);
    for _ in 0..500 {
        if emulator.requests().len() > before {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut response = agent().get(served.url("/slmcode/status")).call().unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let counters: Value =
        serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(counters["in_flight"], 1, "{counters}");
    assert_eq!(counters["requests"], 1, "{counters}");
    assert_eq!(counters["busy"], 0, "{counters}");
    let run = slm.run(["status", "--json"], "");
    run.code(0);
    assert_eq!(run.json()["proxy"]["state"], "running", "{}", run.stdout);
    assert_eq!(first.join().unwrap(), 200);
    emulator.always_delay(Duration::ZERO);
}

#[test]
fn an_upstream_that_stalls_mid_stream_is_an_upstream_error_not_a_client_that_left() {
    let emulator = Emulator::start(Profile::llama_server());
    emulator.faults([Fault::Stall(2, Duration::from_secs(4))]);
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &["--timeout", "1"]);
    let body = json!({"stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let (status, _, text) = post(&served.url("/v1/chat/completions"), &body, None);
    assert_eq!(status, 200);
    assert!(!text.contains("[DONE]"), "the answer is cut short: {text}");
    served.wait_for_line("200 passthrough stream class=upstream_broke_off");
    let mut response = agent().get(served.url("/slmcode/status")).call().unwrap();
    let counters: Value =
        serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(counters["upstream_errors"], 1, "{counters}");
    still_serves(&served);
}
