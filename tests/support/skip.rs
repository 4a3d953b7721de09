//! A test that cannot run here says so instead of passing in silence: [`skip`] counts it, and
//! when the test binary exits one line on stderr says how many were skipped and why. Under
//! `SLMCODE_REQUIRE_E2E=1`, which `.ci/run` sets once its servers are up, a skip is a failure:
//! there everything the tests need is meant to be present (the servers, the `openssl` command,
//! the right to make a device node).

/// Says that `test` does not run, and why. Under `SLMCODE_REQUIRE_E2E=1` (CI) that is a
/// failure. Otherwise the skip is counted, and when the test binary exits one line on stderr
/// (past the test harness's capture) says how many were skipped and why.
pub fn skip(test: &str, why: &'static str) {
    if std::env::var("SLMCODE_REQUIRE_E2E").is_ok_and(|value| value == "1") {
        panic!("{test} cannot run: {why} (SLMCODE_REQUIRE_E2E=1 makes that a failure)");
    }
    static SKIPS: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    static REPORT: std::sync::Once = std::sync::Once::new();
    SKIPS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .push(why);
    extern "C" fn report() {
        let skips = SKIPS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut reasons: Vec<(&str, usize)> = Vec::new();
        for why in skips.iter() {
            match reasons.iter_mut().find(|(known, _)| known == why) {
                Some((_, count)) => *count += 1,
                None => reasons.push((why, 1)),
            }
        }
        let said: Vec<String> = reasons
            .iter()
            .map(|(why, count)| format!("{count} because {why}"))
            .collect();
        let tests = if skips.len() == 1 { "test" } else { "tests" };
        let line = format!(
            "note: {} {tests} skipped: {}\n",
            skips.len(),
            said.join("; ")
        );
        // The harness captures what tests print; the process's stderr itself is the terminal.
        // SAFETY: writing a byte buffer to an open file descriptor.
        unsafe {
            libc::write(2, line.as_ptr().cast(), line.len());
        }
    }
    REPORT.call_once(|| {
        // SAFETY: registers a plain function to run when the process exits.
        unsafe {
            libc::atexit(report);
        }
    });
}
