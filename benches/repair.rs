//! The repair ladder's speed, each figure next to `serde_json::from_str::<Value>` on the same
//! (or the twin valid) bytes in the same run. Figures and commands: `bench/README.md`.
//!
//! The paired table (`-- paired`) gives CPU time and, when valgrind is installed, instructions
//! per call: time swings between runs on a shared machine, the count does not. `-- dump` writes
//! the inputs for other tools, `-- reference FILE` is serde_json's parse-and-print of a file,
//! the whole-process reference of `bench/instructions.sh`.
//!
//! - `valid`: already-valid input (rung `none`) against a plain parse of the same bytes.
//! - `malformed_1kb`: a corpus of ~1 KB small-model answers, each broken one typical way
//!   (fence, prose, trailing commas, single quotes, Python literals, unquoted keys, comments,
//!   missing closers, raw newlines, and all of them at once), against parsing their valid
//!   twins; per way and for the whole corpus.
//! - `linear`: 1 KB, 100 KB and 10 MB documents with a trailing comma in every array and
//!   object, against parsing their valid twins: the ratio must not grow with the size.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use serde_json::{Value, json};
use slmcode::repair::{RepairOptions, Rung, repair};

/// One plan step, as a small model writes it: strings with code, numbers, lists, booleans and
/// a null, and a two-line description.
fn step(id: u64) -> Value {
    json!({
        "id": id,
        "title": format!("Step {id}: wire the timeout through"),
        "description": "Add a `timeout_s` key with a default of 60.\nParse it as a positive integer and reject 0.",
        "files": ["src/config/values.rs", "src/cli/mod.rs"],
        "depends_on": if id > 1 { vec![id - 1] } else { vec![] },
        "done": false,
        "reviewed": true,
        "owner": null
    })
}

/// A plan with `steps` steps, pretty-printed the way models answer (about 330 bytes a step).
fn plan(steps: u64) -> String {
    let value = json!({
        "goal": "Let users override the request timeout from the command line",
        "steps": (1..=steps).map(step).collect::<Vec<_>>()
    });
    serde_json::to_string_pretty(&value).expect("serialises")
}

/// Puts a comma after the last element of every non-empty array and object of a
/// pretty-printed document (whose strings hold no newlines: they are escaped).
fn trailing_commas(pretty: &str) -> String {
    let mut out = String::with_capacity(pretty.len() + pretty.len() / 16);
    let lines: Vec<&str> = pretty.lines().collect();
    for (index, line) in lines.iter().enumerate() {
        out.push_str(line);
        let next = lines.get(index + 1).map(|next| next.trim_start());
        let closes_next = matches!(next, Some(n) if n.starts_with(']') || n.starts_with('}'));
        let opens_here = line.ends_with('[') || line.ends_with('{');
        if closes_next && !opens_here && !line.ends_with(',') {
            out.push(',');
        }
        out.push('\n');
    }
    out
}

/// Replaces `"` delimiters by `'` in a document whose strings hold neither quote.
fn single_quotes(text: &str) -> String {
    text.replace("\\n", "\u{1}")
        .replace('"', "'")
        .replace('\u{1}', "\\n")
}

fn python_literals(text: &str) -> String {
    text.replace(": false", ": False")
        .replace(": true", ": True")
        .replace(": null", ": None")
}

fn unquoted_keys(text: &str) -> String {
    let mut out = text.to_owned();
    for key in [
        "goal",
        "steps",
        "id",
        "title",
        "description",
        "files",
        "depends_on",
        "done",
        "reviewed",
        "owner",
    ] {
        out = out.replace(&format!("\"{key}\":"), &format!("{key}:"));
    }
    out
}

fn comments(text: &str) -> String {
    text.replace("{\n      \"id\"", "{\n      // the next step\n      \"id\"")
        .replace("\"owner\": null", "\"owner\": null /* nobody yet */")
}

/// Cuts every closer (and comma) off the end: the final value, a literal, stays complete.
fn missing_closers(text: &str) -> String {
    let kept = text.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '}' | ']' | ','));
    format!("{kept}\n")
}

fn raw_newlines(text: &str) -> String {
    text.replace("\\n", "\n")
}

/// The ways one document is broken, each with the rung that must report it.
fn corpus(valid: &str) -> Vec<(&'static str, String, Rung)> {
    let fenced = |text: &str| format!("```json\n{text}\n```");
    vec![
        ("fence", fenced(valid), Rung::Fence),
        (
            "prose",
            format!("Sure! Here is the plan you asked for:\n\n{valid}\n\nLet me know if it works."),
            Rung::Extract,
        ),
        (
            "trailing_commas",
            trailing_commas(valid),
            Rung::TrailingComma,
        ),
        ("single_quotes", single_quotes(valid), Rung::Quotes),
        ("python_literals", python_literals(valid), Rung::PythonBools),
        ("unquoted_keys", unquoted_keys(valid), Rung::Unquoted),
        ("comments", comments(valid), Rung::Comments),
        ("missing_closers", missing_closers(valid), Rung::CloseBraces),
        ("raw_newlines", raw_newlines(valid), Rung::ControlChars),
        (
            "everything",
            fenced(&missing_closers(&raw_newlines(&python_literals(
                &single_quotes(&trailing_commas(valid)),
            )))),
            Rung::CloseBraces,
        ),
    ]
}

fn check(text: &str, rung: Rung, valid: &str) {
    let repaired = repair(text, &RepairOptions::new()).expect("the corpus repairs");
    assert_eq!(repaired.rung, rung, "{text}");
    let expected: Value = serde_json::from_str(valid).unwrap();
    assert_eq!(repaired.value, expected);
}

fn valid(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("valid");
    for steps in [3u64, 300] {
        let text = plan(steps);
        assert_eq!(
            repair(&text, &RepairOptions::new()).unwrap().rung,
            Rung::None
        );
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("reference: serde_json::from_str", text.len()),
            &text,
            |bench, text| bench.iter(|| serde_json::from_str::<Value>(black_box(text)).unwrap()),
        );
        group.bench_with_input(
            BenchmarkId::new("repair", text.len()),
            &text,
            |bench, text| bench.iter(|| repair(black_box(text), &RepairOptions::new()).unwrap()),
        );
    }
    group.finish();
}

fn malformed(criterion: &mut Criterion) {
    let valid = plan(3);
    let corpus = corpus(&valid);
    for (_, text, rung) in &corpus {
        check(text, *rung, &valid);
    }
    let mut group = criterion.benchmark_group("malformed_1kb");
    let corpus_bytes: usize = corpus.iter().map(|(_, text, _)| text.len()).sum();
    let twin_bytes = valid.len() * corpus.len();
    group.throughput(Throughput::Bytes(twin_bytes as u64));
    group.bench_function(
        "corpus/reference: serde_json::from_str of the valid twins",
        |bench| {
            bench.iter(|| {
                for _ in 0..corpus.len() {
                    black_box(serde_json::from_str::<Value>(black_box(&valid)).unwrap());
                }
            })
        },
    );
    group.throughput(Throughput::Bytes(corpus_bytes as u64));
    group.bench_function("corpus/repair", |bench| {
        bench.iter(|| {
            for (_, text, _) in &corpus {
                black_box(repair(black_box(text), &RepairOptions::new()).unwrap());
            }
        })
    });
    for (name, text, _) in &corpus {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("repair", name), text, |bench, text| {
            bench.iter(|| repair(black_box(text), &RepairOptions::new()).unwrap())
        });
    }
    group.finish();
}

fn linear(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("linear");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(4));
    // About 1 KB, 100 KB and 10 MB.
    for steps in [3u64, 300, 30_000] {
        let valid = plan(steps);
        let broken = trailing_commas(&valid);
        check(&broken, Rung::TrailingComma, &valid);
        group.throughput(Throughput::Bytes(valid.len() as u64));
        group.bench_with_input(
            BenchmarkId::new(
                "reference: serde_json::from_str of the valid twin",
                valid.len(),
            ),
            &valid,
            |bench, text| bench.iter(|| serde_json::from_str::<Value>(black_box(text)).unwrap()),
        );
        group.throughput(Throughput::Bytes(broken.len() as u64));
        group.bench_with_input(
            BenchmarkId::new(
                "repair, a trailing comma in every array and object",
                valid.len(),
            ),
            &broken,
            |bench, text| bench.iter(|| repair(black_box(text), &RepairOptions::new()).unwrap()),
        );
    }
    group.finish();
}

/// The CPU time this thread has used: unlike wall time, it does not count the time other
/// processes on the shared machine take from us.
fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec and the clock id is a constant libc knows.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// CPU time of `runs` calls of `work`, per call.
fn per_call(runs: u32, work: &mut dyn FnMut()) -> f64 {
    let start = thread_cpu_time();
    for _ in 0..runs {
        work();
    }
    (thread_cpu_time() - start).as_secs_f64() / f64::from(runs)
}

/// Measures `subject` against `reference` in alternating batches of about 5 ms of CPU time
/// each (41 rounds), and returns the median CPU time per call of each and the median of the
/// per-round ratios: conditions on a shared machine change slowly, so neighbouring batches
/// see the same ones.
fn paired(reference: &mut dyn FnMut(), subject: &mut dyn FnMut()) -> (f64, f64, f64) {
    let mut runs = 1u32;
    while per_call(runs, subject) * f64::from(runs) < 0.005 {
        runs *= 2;
    }
    let mut references = Vec::new();
    let mut subjects = Vec::new();
    let mut ratios = Vec::new();
    for round in 0..41 {
        let (first, second) = if round % 2 == 0 {
            let r = per_call(runs, reference);
            (r, per_call(runs, subject))
        } else {
            let s = per_call(runs, subject);
            (per_call(runs, reference), s)
        };
        references.push(first);
        subjects.push(second);
        ratios.push(second / first);
    }
    let median = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    (
        median(&mut references),
        median(&mut subjects),
        median(&mut ratios),
    )
}

/// A row of the paired table: one input (or the whole malformed corpus) and its valid twin.
#[derive(Clone, Copy)]
enum Case {
    /// An already-valid plan of this many steps, against parsing the same bytes.
    Valid(u64),
    /// The 1 KB plan broken the corpus's way number `index`.
    Malformed(usize),
    /// Every way of the 1 KB corpus, one after the other.
    Corpus,
    /// A plan of this many steps with a trailing comma in every array and object.
    TrailingCommas(u64),
}

impl Case {
    fn all() -> Vec<Case> {
        let mut cases = vec![Case::Valid(3), Case::Valid(300)];
        cases.extend((0..corpus(&plan(3)).len()).map(Case::Malformed));
        cases.push(Case::Corpus);
        cases.extend([3, 300, 30_000].map(Case::TrailingCommas));
        cases
    }

    fn name(self) -> String {
        match self {
            Case::Valid(3) => "valid 1 KB (rung none)".to_owned(),
            Case::Valid(_) => "valid 100 KB (rung none)".to_owned(),
            Case::Malformed(index) => format!("malformed 1 KB: {}", corpus(&plan(3))[index].0),
            Case::Corpus => "malformed 1 KB: the whole corpus".to_owned(),
            Case::TrailingCommas(steps) => format!(
                "trailing comma in every array and object, {} bytes",
                plan(steps).len()
            ),
        }
    }

    /// The valid twin, and the inputs repaired in one call of the subject (the reference
    /// parses the twin as many times).
    fn inputs(self) -> (String, Vec<String>) {
        match self {
            Case::Valid(steps) => {
                let text = plan(steps);
                (text.clone(), vec![text])
            }
            Case::Malformed(index) => {
                let twin = plan(3);
                let input = corpus(&twin).swap_remove(index).1;
                (twin, vec![input])
            }
            Case::Corpus => {
                let twin = plan(3);
                let inputs = corpus(&twin).into_iter().map(|(_, text, _)| text).collect();
                (twin, inputs)
            }
            Case::TrailingCommas(steps) => {
                let twin = plan(steps);
                let input = trailing_commas(&twin);
                (twin, vec![input])
            }
        }
    }
}

fn parse_twin(twin: &str, times: usize) {
    for _ in 0..times {
        black_box(serde_json::from_str::<Value>(black_box(twin)).unwrap());
    }
}

fn repair_all(inputs: &[String]) {
    for input in inputs {
        black_box(repair(black_box(input), &RepairOptions::new()).unwrap());
    }
}

/// The table in bench/README.md: every figure next to its reference, as CPU time per call, as
/// the median ratio of neighbouring batches, and as instructions per call when valgrind is
/// installed (see [`instructions`]).
fn paired_table() {
    let counted = valgrind_found();
    println!("paired CPU-time ratios (median of 41 alternating batches), instructions per call");
    println!(
        "| case | bytes in | reference: serde_json | repair | time ratio | throughput ratio | instructions: serde_json | repair | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (index, case) in Case::all().into_iter().enumerate() {
        let (twin, inputs) = case.inputs();
        let (reference, subject, ratio) =
            paired(&mut || parse_twin(&twin, inputs.len()), &mut || {
                repair_all(&inputs)
            });
        let input_bytes: usize = inputs.iter().map(String::len).sum();
        let twin_bytes = twin.len() * inputs.len();
        let throughput = (input_bytes as f64 / twin_bytes as f64) / ratio;
        let counts = if counted {
            match (
                instructions(index, "reference"),
                instructions(index, "repair"),
            ) {
                (Some(reference), Some(subject)) => format!(
                    "{reference} | {subject} | {:.2}",
                    subject as f64 / reference as f64
                ),
                _ => "(failed) | | ".to_owned(),
            }
        } else {
            "| | ".to_owned()
        };
        println!(
            "| {} | {input_bytes} | {:.2} µs | {:.2} µs | {ratio:.2} | {throughput:.2} | {counts} |",
            case.name(),
            reference * 1e6,
            subject * 1e6,
        );
    }
    if !counted {
        println!("(valgrind is not installed: no instruction counts)");
    }
}

fn valgrind_found() -> bool {
    std::process::Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

/// The instructions one call of `side` (`reference` or `repair`) of case number `case` executes:
/// this benchmark runs itself once more under callgrind (`count CASE SIDE`), which counts only
/// inside [`measured`]. Unlike time, the count is the same from run to run and does not depend
/// on what else the machine is doing, so a change of a few percent shows in one run.
fn instructions(case: usize, side: &str) -> Option<u64> {
    let out = std::env::temp_dir().join(format!(
        "slmcode-repair-bench-{}-{case}-{side}.callgrind",
        std::process::id()
    ));
    let status = std::process::Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--collect-atstart=no")
        .arg("--toggle-collect=*measured*")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(std::env::current_exe().ok()?)
        .args(["count", &case.to_string(), side])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    let report = std::fs::read_to_string(&out).ok();
    let _ = std::fs::remove_file(&out);
    if !status.success() {
        return None;
    }
    report?
        .lines()
        .find_map(|line| line.strip_prefix("summary:"))
        .and_then(|count| count.trim().parse().ok())
}

/// `count CASE SIDE`: one call of one side of one case, inside [`measured`].
fn count_one(case: &str, side: &str) {
    let case = Case::all()[case.parse::<usize>().expect("a case number")];
    let (twin, inputs) = case.inputs();
    match side {
        "reference" => measured(&mut || parse_twin(&twin, inputs.len())),
        "repair" => measured(&mut || repair_all(&inputs)),
        _ => panic!("count CASE reference|repair"),
    }
}

/// The one function callgrind counts in (`--toggle-collect`): everything `work` runs.
#[inline(never)]
fn measured(work: &mut dyn FnMut()) {
    work();
}

/// `reference FILE`: serde_json's parse-and-print of a file, the whole-process reference of
/// `bench/instructions.sh`: read it as UTF-8, parse it into a `Value`, write it compact with a
/// newline to stdout, drop the value.
fn parse_and_print(path: &str) {
    use std::io::Write;
    let text = std::fs::read_to_string(path).expect("a readable UTF-8 file");
    let value: Value = serde_json::from_str(&text).expect("valid JSON");
    let mut out = serde_json::to_string(&value).expect("serialises");
    out.push('\n');
    std::io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .expect("stdout");
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = valid, malformed, linear
}

/// Writes the corpus and its valid twin to `target/repair-corpus/`, so that other tools can be
/// measured on the same bytes (`cargo bench --bench repair -- dump`).
fn dump_corpus() {
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/repair-corpus");
    std::fs::create_dir_all(&directory).expect("create target/repair-corpus");
    let small = plan(3);
    std::fs::write(directory.join("twin.json"), &small).unwrap();
    for (name, text, _) in corpus(&small) {
        std::fs::write(directory.join(format!("{name}.txt")), text).unwrap();
    }
    for steps in [3u64, 300, 30_000] {
        let valid = plan(steps);
        std::fs::write(
            directory.join(format!("valid-{}.json", valid.len())),
            &valid,
        )
        .unwrap();
        let broken = trailing_commas(&valid);
        std::fs::write(
            directory.join(format!("commas-{}.txt", valid.len())),
            broken,
        )
        .unwrap();
    }
    // The 10 MB plan broken every way at once, as the 1 KB `everything.txt` is.
    let valid = plan(30_000);
    let everything = corpus(&valid)
        .pop()
        .expect("the corpus ends with everything")
        .1;
    std::fs::write(
        directory.join(format!("everything-{}.txt", valid.len())),
        everything,
    )
    .unwrap();
    println!("wrote {}", directory.display());
}

fn main() {
    // `cargo bench --bench repair -- paired` prints only the paired table; no filter runs both.
    let words: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    match words.first().map(String::as_str) {
        Some("paired") => paired_table(),
        Some("dump") => dump_corpus(),
        Some("count") if words.len() == 3 => return count_one(&words[1], &words[2]),
        Some("reference") if words.len() == 2 => return parse_and_print(&words[1]),
        None => {
            paired_table();
            benches();
        }
        Some(_) => benches(),
    }
    Criterion::default().configure_from_args().final_summary();
}
