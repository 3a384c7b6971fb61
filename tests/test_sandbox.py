"""The sandbox's policy (`locm.runner.sandbox.bwrap`): what a bot's command is shown, hidden and limited to, read from the
bubblewrap command line `build` makes (no sandbox needed for these; tests/test_hostile.py runs real ones)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from locm.errors import BotBindError, BotLimitsError
from locm.runner.sandbox.bwrap import KEYS_IN_PROC, Sandbox, build, host_load_masked
from locm.runner.sandbox.limits import MiB, BotLimits


def binds(argv: list[str]) -> dict[str, str]:
    """``--ro-bind SRC DEST`` pairs of a bwrap command line: destination -> source."""
    return {argv[i + 2]: argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"}


def command(argv, policy=Sandbox(), cwd=None):
    launch = build([str(a) for a in argv], policy, str(cwd) if cwd else None)
    launch.close()
    return launch


def test_limits_parse_with_units_and_none():
    limits = BotLimits.parse("mem=1g, procs=64,cpu=30,fsize=512k,vmem=none,tmp=16m")
    assert limits == BotLimits(mem=1 << 30, cpu=30, procs=64, files=256, fsize=512 * 1024, tmp=16 * MiB, vmem=None)
    assert BotLimits.parse(limits.spec()) == limits
    assert BotLimits().spec() == "mem=768m,cpu=60,procs=128,files=256,fsize=64m,tmp=64m,vmem=none"
    assert BotLimits.parse("mem=none").prlimit_args() == ["--nproc=128", "--nofile=256", "--fsize=67108864",
                                                           "--cpu=60:61", "--core=0"]


@pytest.mark.parametrize("spec, message", [
    ("mem", "expected name=value, got 'mem'"),
    ("mem=1x", "mem: expected a size like 768m or 1g or none, got '1x'"),
    ("mem=1m", "mem: expected at least 16m, got '1m'"),
    ("cpu=1.5", "cpu: expected a whole number or none, got '1.5'"),
    ("files=4", "files: expected at least 16, got '4'"),
    ("swap=1g", "unknown limit 'swap', expected one of mem, cpu, procs, files, fsize, tmp, vmem"),
])
def test_bad_limits_are_refused_saying_what_was_expected(spec, message):
    with pytest.raises(BotLimitsError) as info:
        BotLimits.parse(spec)
    assert message in str(info.value) and info.value.spec == spec


def test_a_bot_sees_its_folder_and_its_interpreter_and_no_more(tmp_path):
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "me.py").write_text("")
    launch = command([sys.executable, bots / "me.py"])
    shown = binds(launch.argv)
    assert shown[str(bots)] == str(bots)  # its own folder, read-only
    venv = Path(sys.prefix)
    if sys.prefix != sys.base_prefix:
        assert str(venv) in shown  # the venv of the interpreter: its site-packages
    real = Path(os.path.realpath(sys.executable)).parent.parent
    assert any(str(real).startswith(d) for d in shown) or str(real).startswith("/usr")
    assert not any(d in shown for d in ("/home", "/root", str(Path.home()), "/etc", str(tmp_path)))
    assert "--unshare-net" in launch.argv and "--unshare-pid" in launch.argv and "--die-with-parent" in launch.argv
    assert launch.argv[launch.argv.index("--remount-ro") + 1] == "/dev"
    assert ["--remount-ro", "/"] == launch.argv[launch.argv.index("--chdir") - 2:launch.argv.index("--chdir")]


def test_a_venv_of_the_system_python_is_shown_whole(tmp_path):
    """A venv's python links to the system's: the venv (its site-packages) is still shown."""
    if not os.path.exists("/usr/bin/python3"):
        pytest.skip("no /usr/bin/python3")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin" / "python").symlink_to("/usr/bin/python3")
    assert str(venv) in binds(command([venv / "bin" / "python", "-c", "pass"]).argv)


def test_a_scripts_interpreter_is_found_through_its_shebang(tmp_path):
    root = tmp_path / "runtime"
    (root / "bin").mkdir(parents=True)
    interpreter = root / "bin" / "lang"
    interpreter.write_text("#!/bin/sh\n")
    interpreter.chmod(0o755)
    script = tmp_path / "bot" / "run"
    script.parent.mkdir()
    script.write_text("#!/usr/bin/env lang\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", f"{root / 'bin'}:{os.environ['PATH']}")
        shown = binds(command([script]).argv)
    assert shown[str(root)] == str(root) and shown[str(script.parent)] == str(script.parent)


def test_a_bot_lying_in_a_broad_folder_is_shown_alone():
    bot = Path("/tmp") / f"locm-test-bot-{os.getpid()}.py"
    bot.write_text("")
    try:
        shown = binds(command([sys.executable, bot]).argv)
    finally:
        bot.unlink()
    assert "/tmp" not in shown and shown[str(bot)] == str(bot)


def test_the_store_and_other_bots_beside_a_bot_read_as_nothing(tmp_path):
    for name in ("me.py", "other.py", "locm.db"):
        (tmp_path / name).write_text("x")
    hide = (str(tmp_path / "locm.db"), str(tmp_path / "locm.db-wal"), str(tmp_path / "other.py"),
            str(tmp_path / "me.py"))
    argv = command([sys.executable, tmp_path / "me.py"], Sandbox(hide=hide)).argv
    masked = [dest for dest, src in binds(argv).items() if src == "/dev/null"]
    assert sorted(masked) == sorted([str(tmp_path / "locm.db"), str(tmp_path / "other.py"), *KEYS_IN_PROC,
                                     *host_load_masked()])  # not its own; and the kernel's list of keys and the
    # files of the host's load, in every sandbox (`locm.runner.sandbox.filter`, `HOST_LOAD`)


def test_the_environment_is_rebuilt_and_keeps_no_secret(monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "hunter2")
    monkeypatch.setenv("LOCM_BOT_TOKEN", "abc")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    env = command(["true"]).env
    assert "AWS_SECRET_ACCESS_KEY" not in env and "LOCM_BOT_TOKEN" not in env
    assert env["HOME"] == env["TMPDIR"] == "/tmp" and env["LC_ALL"] == "C.UTF-8"
    assert env["JAVA_TOOL_OPTIONS"] == f"-XX:MaxRAM={768 * MiB}"


def test_network_and_more_paths_only_when_asked(tmp_path):
    argv = command(["true"], Sandbox(network=True, binds=(str(tmp_path),))).argv
    assert "--unshare-net" not in argv and binds(argv)[str(tmp_path)] == str(tmp_path)
    assert Sandbox(network=True, binds=(str(tmp_path),)).describe().endswith(
        f"network: ON (--bot-network); also shown: {tmp_path}")


def test_a_command_run_as_another_user_sees_the_folders_it_could_not_pass_through_as_tmpfs():
    """`locm.runner.sandbox.user.view_args`: each folder above a needed path that the user cannot pass through is a
    tmpfs showing only the needed entries (a folder that is blocked too is made, and gets its own tmpfs next)."""
    import pwd
    import shutil
    import tempfile

    from locm.runner.sandbox.user import view_args

    nobody = pwd.getpwnam("nobody")
    top = Path(tempfile.mkdtemp(prefix="locm-test-runas-"))  # in /tmp, which anyone may pass through
    try:
        (top / "open" / "needed").mkdir(parents=True)
        (top / "shut" / "deeper" / "needed").mkdir(parents=True)
        (top / "shut" / "other").mkdir()
        top.chmod(0o700)
        (top / "shut").chmod(0o700)
        args = view_args([str(top / "open" / "needed"), str(top / "shut" / "deeper" / "needed")], nobody)
        assert args == ["--perms", "0755", "--tmpfs", str(top),
                        "--bind", str(top / "open"), str(top / "open"),
                        "--perms", "0755", "--dir", str(top / "shut"),
                        "--perms", "0755", "--tmpfs", str(top / "shut"),
                        "--bind", str(top / "shut" / "deeper"), str(top / "shut" / "deeper")]
        assert view_args([str(top / "open")], nobody) == ["--perms", "0755", "--tmpfs", str(top),
                                                          "--bind", str(top / "open"), str(top / "open")]
        top.chmod(0o755)
        assert view_args([str(top / "open" / "needed")], nobody) == []
    finally:
        shutil.rmtree(top)


def test_a_bind_that_leads_to_a_system_folder_is_refused(tmp_path):
    """``--bot-bind`` of a symlink is judged where it leads: one to / or into /etc shows the host."""
    (tmp_path / "root").symlink_to("/")
    (tmp_path / "etc").symlink_to("/etc")
    with pytest.raises(BotBindError, match="it leads to /, which is never shown to bots"):
        Sandbox(binds=(str(tmp_path / "root"),))
    with pytest.raises(BotBindError, match="/etc is the system folder /etc, never shown to bots"):
        Sandbox(binds=(str(tmp_path / "etc"),))
    assert Sandbox(binds=(str(tmp_path),)).binds == (str(tmp_path),)


def test_the_host_load_is_not_in_a_bots_proc():
    """/proc/stat and /proc/loadavg are files of zeros of the same shape (one cpuN line per CPU); the files of
    pressure and interrupts are bound over with /dev/null, where this kernel has them."""
    argv = command(["true"]).argv
    written = [argv[i + 2] for i, a in enumerate(argv) if a == "--ro-bind-data"]
    assert "/proc/stat" in written and "/proc/loadavg" in written
    masked = [dest for dest, src in binds(argv).items() if src == "/dev/null"]
    for path in ("/proc/interrupts", "/proc/pressure/cpu"):
        if os.path.exists(path):
            assert path in masked
