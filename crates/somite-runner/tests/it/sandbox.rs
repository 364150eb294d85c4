//! The sandbox a candidate's proof runs in, against commands that try to
//! leave it: each is contained, says so in its exit, and changes nothing
//! outside its own folder. (The host's real `bwrap`, as `scripts/setup`
//! installs it; these are the commands, not a Nextflow run.)

use somite_runner::sandbox::{Confined, Sandbox, SandboxLimits, hand_to, run_bounded};
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn sandbox() -> Sandbox {
    Sandbox::probe()
        .expect("scripts/setup installs bubblewrap and the kernel offers user namespaces")
}

/// `script` run by bash in a sandbox whose work folder is `work`.
fn confined(sandbox: &Sandbox, work: &Path, script: &str) -> Command {
    hand_to(sandbox, work).unwrap();
    let mut command = sandbox.command(&Confined {
        work,
        writable: Vec::new(),
        read_only: Vec::new(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        program: "/bin/bash",
        args: vec![OsString::from("-c"), script.into()],
    });
    command.stdout(std::fs::File::create(work.join("out")).unwrap());
    command.stderr(std::fs::File::create(work.join("err")).unwrap());
    command
}

fn run(command: &mut Command) -> Option<i32> {
    run_bounded(command, Duration::from_secs(20)).unwrap()
}

#[test]
fn its_own_folder_is_writable_and_nothing_else_is() {
    let sandbox = sandbox();
    // Inside a folder only its owner may enter, as a project's often is: the
    // sandbox reaches its folder all the same, and nothing above it.
    let private = tempfile::tempdir().unwrap();
    let work = private.path().join("task");
    std::fs::create_dir(&work).unwrap();
    let work = &work;
    let outside = tempfile::tempdir().unwrap();
    let script = format!(
        "echo inside > ok && (echo x > {0}/planted || true) && (echo x > /usr/planted || true) && (echo x > /etc/planted || true)",
        outside.path().display()
    );
    assert_eq!(run(&mut confined(&sandbox, work, &script)), Some(0));
    assert_eq!(
        std::fs::read_to_string(work.join("ok")).unwrap(),
        "inside\n"
    );
    assert!(!outside.path().join("planted").exists());
    assert!(!Path::new("/usr/planted").exists() && !Path::new("/etc/planted").exists());
}

#[test]
fn the_users_home_and_other_folders_do_not_exist_inside() {
    let sandbox = sandbox();
    let work = tempfile::tempdir().unwrap();
    let secret = tempfile::tempdir().unwrap();
    std::fs::write(secret.path().join("credentials"), "token").unwrap();
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let script = format!(
        "cat {0}/credentials; test ! -e {0} && test ! -e {home} && test -z \"$HOME$SOMITE_CAPABILITY\"",
        secret.path().display()
    );
    let mut command = confined(&sandbox, work.path(), &script);
    // Even set on Somite's own process, nothing leaks into the sandbox.
    command.env("SOMITE_CAPABILITY", "secret-capability");
    assert_eq!(
        run(&mut command),
        Some(0),
        "{}",
        std::fs::read_to_string(work.path().join("err")).unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(work.path().join("out")).unwrap(),
        ""
    );
}

#[test]
fn a_socket_reaches_no_network_not_even_the_hosts_loopback() {
    let sandbox = sandbox();
    let work = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let code = run(&mut confined(&sandbox, work.path(), &script));
    assert_ne!(code, Some(0));
    assert!(
        listener.accept().is_err(),
        "nothing reached the host's port"
    );
    let script = "getent hosts deb.debian.org || exec 3<>/dev/tcp/151.101.2.132/80";
    assert_ne!(run(&mut confined(&sandbox, work.path(), script)), Some(0));
}

#[test]
fn printing_a_gigabyte_stops_at_the_file_limit() {
    let mut sandbox = sandbox();
    sandbox.limits = SandboxLimits {
        file_bytes: 1 << 20,
        ..sandbox.limits
    };
    let work = tempfile::tempdir().unwrap();
    let code = run(&mut confined(&sandbox, work.path(), "head -c 1G /dev/zero"));
    assert_ne!(code, Some(0));
    let written = std::fs::metadata(work.path().join("out")).unwrap().len();
    assert!(written <= 1 << 20, "{written} bytes");
}

#[test]
fn a_fork_bomb_stops_at_the_process_limit_and_sleeping_forever_at_the_timeout() {
    let mut sandbox = sandbox();
    sandbox.limits = SandboxLimits {
        processes: 32,
        ..sandbox.limits
    };
    let work = tempfile::tempdir().unwrap();
    // Forks until refused, then reports how far it got.
    let script = "python3 -c '\nimport os, time\nn = 0\ntry:\n    while n < 1000:\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n        n += 1\nexcept OSError:\n    pass\nprint(n, flush=True)\nos._exit(0)'";
    let mut command = confined(&sandbox, work.path(), script);
    let code = run_bounded(&mut command, Duration::from_secs(10)).unwrap();
    let out = std::fs::read_to_string(work.path().join("out")).unwrap();
    let forked: u32 = out.trim().parse().unwrap_or_else(|_| {
        panic!(
            "{out:?} {:?} (exit {code:?})",
            std::fs::read_to_string(work.path().join("err"))
        )
    });
    assert!(
        forked > 0 && forked <= 32,
        "the limit stopped it at {forked} processes"
    );

    let mut command = confined(&sandbox, work.path(), "sleep 1000");
    assert_eq!(
        run_bounded(&mut command, Duration::from_secs(1)).unwrap(),
        None
    );
    std::thread::sleep(Duration::from_millis(200));
    let left = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|cmdline| {
            cmdline.starts_with(b"sleep\x001000") || cmdline.starts_with(b"sleep\x0030")
        })
        .count();
    assert_eq!(left, 0, "the whole sandbox was killed");
}
