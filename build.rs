//! Embeds the git commit the binary was built from, for `slmcode --version`.
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    Some(text.trim().to_owned()).filter(|text| !text.is_empty())
}

fn main() {
    // A source tree without git (a crates.io tarball) still builds; it just cannot say.
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=SLMCODE_COMMIT={commit}");
    // Rebuild when HEAD moves: HEAD itself (a checkout), the branch it points at (a commit), and
    // packed refs (after gc).
    for path in [
        Some("HEAD".to_owned()),
        git(&["symbolic-ref", "-q", "HEAD"]),
        Some("packed-refs".to_owned()),
    ]
    .into_iter()
    .flatten()
    {
        if let Some(resolved) = git(&["rev-parse", "--git-path", &path]) {
            println!("cargo:rerun-if-changed={resolved}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
