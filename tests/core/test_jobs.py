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


def test_a_cancel_runs_what_the_job_registered_at_once_on_the_cancelling_thread() -> None:
    """Work blocked where it cannot look at its event (a request to a server that never
    answers) registers what stops it; cancel_all runs that at once, and a job that is
    already cancelled runs it as it registers it."""
    jobs = JobRegistry()
    registered = threading.Event()
    stopped: list[str] = []
    release = threading.Event()

    def work(cancel) -> str:
        def fails() -> None:
            raise RuntimeError("a broken callback")

        cancel.when_set(fails)  # logged; the next one still runs
        cancel.when_set(lambda: (stopped.append(threading.current_thread().name), release.set()))
        registered.set()
        return "stopped" if release.wait(10) else "timed out"

    outcomes: list[object] = []
    delivered = threading.Event()

    def deliver(outcome: object) -> None:
        outcomes.append(outcome)
        delivered.set()

    job = jobs.start("blocked", work, deliver, deliver)
    assert registered.wait(5)
    jobs.cancel_all()
    assert stopped == [threading.current_thread().name]  # run by the canceller, before it returned
    assert jobs.wait(5)
    job.cancel.when_set(lambda: stopped.append("late"))  # already cancelled: at once
    assert stopped[-1] == "late"
    assert delivered.wait(5) and outcomes == ["stopped"]
