"""A busy machine is detected, reported and never silently replaces a
quieter profile (/proc contents and profiles injected)."""
from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from roofline.microbench.cpu import busy
from roofline.core.model import Ceiling, Device, MemoryLevel

STAT_0 = "cpu  1000 0 500 8000 10 0 5 100 0 0\ncpu0 500 0 250 4000 5 0 2 50 0 0\n"
STAT_1 = "cpu  1600 0 700 8300 10 0 5 400 0 0\n"


def test_proc_parsing_and_steal_share():
    assert busy.load_average("1.52 0.80 0.40 3/200 1234\n") == 1.52
    t0, t1 = busy.cpu_times(STAT_0), busy.cpu_times(STAT_1)
    assert (t0.total, t0.steal) == (9615, 100)
    assert busy.steal_share(t0, t1) == pytest.approx(300 / 1400)


def test_busy_reasons():
    assert busy.busy_reasons(0.3, 0.0, 2, {"fp64": 0.02}) == []
    reasons = busy.busy_reasons(1.6, 0.2, 2, {"L3": 0.36, "fp64": 0.3})
    assert len(reasons) == 3 and "load average 1.60" in reasons[0] and "steal" in reasons[1]
    assert "L3 samples spread 36 %" in reasons[2]


def cpu_profile(spread: float, busy_run: bool) -> Device:
    c = Ceiling(1e10, samples=(1e10, 1e10 * (1 - spread)))
    return Device(name="my-cpu", kind="cpu", compute={"fp64": c},
                  memory={"DRAM": MemoryLevel("DRAM", Ceiling(2e10, samples=(2e10, 2e10 * (1 - spread))))},
                  provenance={"method": "measured", "machine_load": {
                      "busy": busy_run, "reasons": ["load average 1.60 on 2 cores"] if busy_run else []}})


def test_busy_run_does_not_replace_a_quieter_profile(tmp_path, capsys):
    from roofline.cli.measure import _refuse_busy_over_quiet
    from roofline.devices.profile import save_device
    target = tmp_path / "my-cpu.yaml"
    save_device(cpu_profile(0.05, False), target)
    noisy = cpu_profile(0.40, True)
    assert _refuse_busy_over_quiet(noisy, target, force=False) == tmp_path / "my-cpu.busy.yaml"
    err = capsys.readouterr().err
    assert "the machine was busy (load average 1.60 on 2 cores)" in err and "--force" in err
    assert "is kept" in err
    assert _refuse_busy_over_quiet(noisy, target, force=True) == target              # forced
    assert _refuse_busy_over_quiet(cpu_profile(0.02, False), target, force=False) == target
    assert _refuse_busy_over_quiet(noisy, tmp_path / "new.yaml", force=False) == tmp_path / "new.yaml"


def test_busy_verdict_is_a_prominent_warning_in_the_profile():
    from roofline.microbench.cpu.measure import _with_busy_verdict
    dev = cpu_profile(0.40, False)
    out = _with_busy_verdict(dev, {"load_average_before": 1.6, "steal_share": 0.0, "cores": 2}, 2)
    assert out.provenance["machine_load"]["busy"] is True
    assert str(out.warnings[0]).startswith("machine: MEASURED ON A BUSY MACHINE")
    quiet = _with_busy_verdict(cpu_profile(0.01, False),
                               {"load_average_before": 0.1, "steal_share": 0.0, "cores": 2}, 2)
    assert quiet.provenance["machine_load"]["busy"] is False and not quiet.warnings


def stat(busy_jiffies: float, idle_jiffies: float) -> str:
    return f"cpu  {busy_jiffies} 0 0 {idle_jiffies} 0 0 0 0 0 0\n"


def test_busy_share_counts_what_was_not_idle():
    t0, t1 = busy.cpu_times(stat(100, 900)), busy.cpu_times(stat(160, 940))
    assert busy.busy_share(t0, t1) == pytest.approx(60 / 100)


def test_measure_waits_for_a_quiet_machine_within_a_bound():
    # other processes use 80 % of the CPU for two windows, then 5 %
    texts = iter([stat(0, 0), stat(80, 20), stat(80, 20), stat(160, 40), stat(160, 40), stat(165, 135)])
    slept, told = [], []
    q = busy.wait_for_quiet(lambda: next(texts), slept.append, 10.0, window_s=0.5, on_wait=told.append)
    assert q.quiet and q.share == pytest.approx(0.05) and q.waited_s == pytest.approx(1.5)
    assert slept == [0.5] * 3 and told == [pytest.approx(0.8)]   # said once, when it began
    # a machine that stays busy: the wait ends at the bound, busy
    busy_texts = iter([stat(80 * i // 2, 20 * i // 2) for i in range(200)])
    q = busy.wait_for_quiet(lambda: next(busy_texts), lambda s: None, 2.0, window_s=0.5)
    assert not q.quiet and q.waited_s == pytest.approx(2.0)
    # no /proc/stat: no wait, nothing claimed
    assert busy.wait_for_quiet(lambda: None, slept.append, 10.0) == busy.QuietWait(None, 0.0, True)


def test_the_instantaneous_busy_share_rules_over_a_lagging_load_average():
    # a job that just ended still holds the 1-minute load average at 1.6
    assert busy.busy_reasons(1.6, 0.0, 2, {}, share_before=0.03) == []
    reasons = busy.busy_reasons(0.1, 0.0, 2, {}, share_before=0.6)
    assert reasons == ["other processes used 60 % of the 2 cores just before the run"]


def test_waits_before_retries_stop_at_their_budget(monkeypatch):
    from roofline.microbench.cpu import measure as M
    calls = []

    def fake_wait(read, sleep, max_wait_s, *a, **k):
        calls.append(max_wait_s)
        return busy.QuietWait(0.5, max_wait_s, False)      # still busy: the whole wait spent
    monkeypatch.setattr(busy, "wait_for_quiet", fake_wait)
    settle = M._retry_waits(busy, 12.0)
    for _ in range(6):
        settle()
    assert calls == [M.RETRY_WAIT_S, M.RETRY_WAIT_S, 2.0]   # 5 + 5 + 2 s, then no more waiting
