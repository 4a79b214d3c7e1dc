"""A process forked after import must never hang in the library.

fork() copies only the calling thread, so the Go runtime's threads are gone
in the child and entering any Go export can block forever. A child that
merely drops and garbage-collects inherited agents, sessions and models must
exit cleanly; real work there fails with a clear ``RuntimeError`` (and, for
callers of the C functions, a "forked" error), never a hang.

The scenario runs in a subprocess with a timeout, and the parent inside it
waits for its children against a deadline: a hang fails the test instead
of stalling the suite.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")

CHILDREN = 40

SCENARIO = textwrap.dedent(
    """
    import asyncio, gc, json, os, signal, sys, time, traceback, warnings

    # Python warns that forking a process with threads (here Go's) may
    # deadlock the child: exactly what this scenario checks does not happen.
    warnings.simplefilter("ignore", DeprecationWarning)

    from starweaver import _capi, create_agent, tool
    from starweaver._library import load
    from starweaver.testing import FunctionModel, TestModel

    CHILDREN = {children}

    @tool
    def add(left: int, right: int) -> int:
        return left + right

    @tool
    async def shout(text: str) -> str:
        return text.upper()

    def build():
        '''Agents, sessions and models after one finished run of each kind;
        the returned dict holds the only references.'''
        calls = [{{"id": "a", "name": "add", "arguments": {{"left": 1, "right": 2}}}},
                 {{"id": "s", "name": "shout", "arguments": {{"text": "hi"}}}}]
        test_model = TestModel.responses([TestModel.tool_call_response(calls), "done"])
        agent = create_agent(model=test_model, tools=[add, shout])
        session = agent.session()

        def answer(messages, params):
            return "function model"

        function_agent = create_agent(model=FunctionModel(answer))

        async def runs():
            return await session.run("go"), await function_agent.run("hello")

        first, second = asyncio.run(runs())
        assert first.output == "done" and second.output == "function model", (first.output, second.output)
        return {{
            "agents": [agent, function_agent],
            "sessions": [session, agent.session(), function_agent.session()],
            "results": [first, second],
            "handles": [agent._handle, session._handle],
        }}

    def refused(fn):
        try:
            fn()
        except RuntimeError as exc:
            assert "forked" in str(exc), exc
        else:
            raise AssertionError(f"{{fn}} did not refuse to run in a forked child")

    def child(objs):
        agent_handle, session_handle = objs["handles"]
        objs.clear()
        gc.collect()  # finalizers release every inherited handle: no-ops here

        # Real work is a clear error, through the Python API and _capi.
        refused(lambda: create_agent(model=TestModel.responses(["x"])))
        refused(lambda: _capi.session_new(agent_handle))
        refused(lambda: _capi.session_messages(session_handle))
        refused(lambda: _capi.run_complete(1, 1, b"{{}}"))
        refused(lambda: _capi.run_cancel(1))
        refused(_capi.handle_count)
        refused(_capi.version)
        # Releasing and shutting down do nothing.
        _capi.release(agent_handle)
        _capi.shutdown()

        # The library refuses by itself, before entering Go, for callers
        # that bypass the Python guard.
        ffi, lib = load()
        out, err = ffi.new("sw_handle *"), ffi.new("char **")
        assert lib.sw_session_new(agent_handle, out, err) == -1
        detail = json.loads(ffi.string(err[0]))
        lib.sw_free(err[0])
        assert detail["type"] == "forked" and "fork" in detail["message"], detail
        assert lib.sw_release(session_handle, err) == 0
        assert lib.sw_handle_count() == -1
        assert lib.sw_shutdown() == 0

    def main():
        objs = build()
        pids = []
        for _ in range(CHILDREN):
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    child(objs)
                except BaseException:
                    traceback.print_exc()
                    code = 1
                # A normal exit: atexit hooks and remaining finalizers run.
                sys.exit(code)
            pids.append(pid)

        codes, deadline = {{}}, time.monotonic() + 45
        while len(codes) < len(pids) and time.monotonic() < deadline:
            for pid in pids:
                if pid not in codes:
                    done, status = os.waitpid(pid, os.WNOHANG)
                    if done:
                        codes[pid] = os.waitstatus_to_exitcode(status)
            time.sleep(0.02)
        hung = [pid for pid in pids if pid not in codes]
        for pid in hung:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)

        # The parent is unaffected.
        after = asyncio.run(create_agent(model=TestModel.responses(["still fine"])).run("again"))
        objs.clear()
        print(json.dumps({{"codes": sorted(codes.values()), "hung": len(hung), "after": after.output}}))

    if __name__ == "__main__":
        main()
    """
)


def test_forked_children_never_hang_and_refuse_real_work() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCENARIO.format(children=CHILDREN)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report == {"codes": [0] * CHILDREN, "hung": 0, "after": "still fine"}, proc.stderr


BEFORE_FIRST_USE = textwrap.dedent(
    """
    import asyncio, json, os, time
    from starweaver import _library, create_agent, tool
    from starweaver.testing import TestModel

    @tool
    async def add(left: int, right: int) -> int:
        return left + right

    def run():
        calls = [{"id": "a", "name": "add", "arguments": {"left": 2, "right": 3}}]
        model = TestModel.responses([TestModel.tool_call_response(calls), "done"])
        result = asyncio.run(create_agent(model=model, tools=[add]).run("go"))
        return result.output, [r["content"] for r in result.tool_returns()]

    assert not _library.loaded()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        # Imported, never used before the fork: the child loads a runtime of
        # its own and works.
        os.close(r)
        try:
            os.write(w, json.dumps(run()).encode())
        finally:
            os._exit(0)
    os.close(w)
    deadline = time.monotonic() + 60
    while os.waitpid(pid, os.WNOHANG)[0] == 0:
        if time.monotonic() > deadline:  # a hang fails the test, not the suite
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            break
        time.sleep(0.02)
    child = json.loads(os.read(r, 65536) or b"null")
    print(json.dumps({"child": child, "parent": run()}))
    """
)


def test_a_child_forked_before_first_use_runs_agents() -> None:
    proc = subprocess.run([sys.executable, "-c", BEFORE_FIRST_USE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report == {"child": ["done", [5]], "parent": ["done", [5]]}, proc.stderr
