"""Background jobs: outcomes delivered through ``post``, cancellation, and a registry that
lock and quit wait on with a deadline."""

from __future__ import annotations

import threading

from core.jobs import JobRegistry


def test_success_and_failure_reach_their_callbacks_through_post() -> None:
    posted: list[object] = []
    outcomes: list[object] = []
    jobs = JobRegistry(post=lambda callback: (posted.append(callback), callback()))
    jobs.start("ok", lambda _cancel: 42, outcomes.append, outcomes.append)
    failing = ValueError("broken")

    def fail(_cancel: threading.Event) -> None:
        raise failing

    jobs.start("fails", fail, outcomes.append, outcomes.append)
    assert jobs.wait(5)
    for _ in range(100):  # the outcome is posted just after the job leaves the registry
        if len(outcomes) == 2:
            break
        threading.Event().wait(0.01)
    assert sorted(map(repr, outcomes)) == sorted([repr(42), repr(failing)])
    assert len(posted) == 2


def test_cancel_all_reaches_every_job_and_wait_sees_them_end() -> None:
    jobs = JobRegistry()
    started = threading.Barrier(3)
    seen: list[bool] = []

    def work(cancel: threading.Event) -> bool:
        started.wait(5)
        return cancel.wait(10)

    for name in ("copy", "probe"):
        jobs.start(name, work, seen.append, seen.append)
    started.wait(5)
    assert [job.name for job in jobs.running()] == ["copy", "probe"]
    assert not jobs.wait(0.05)  # still running
    jobs.cancel_all()
    assert jobs.wait(5)
    assert jobs.running() == []
    assert seen == [True, True]


def test_a_stuck_job_does_not_hold_wait_past_its_deadline_nor_the_process() -> None:
    jobs = JobRegistry()
    release = threading.Event()
    job = jobs.start("stuck", lambda _cancel: release.wait(30), lambda _r: None, lambda _e: None)
    jobs.cancel_all()  # ignored by this job
    assert not jobs.wait(0.2)
    assert job.cancelled and not job.done.is_set()
    thread = next(t for t in threading.enumerate() if t.name == "hearth-job-stuck")
    assert thread.daemon  # the interpreter does not wait for it at exit
    release.set()
    assert jobs.wait(5)
