"""Exported session state: what unsigned and signed state guarantee.

Unsigned state (no state key) carries a sha256 checksum anyone can
recompute, so it is refused unless the caller opts in with
``allow_unsigned=True``; signed state (``state_key=`` or
``STARWEAVER_STATE_KEY``) is accepted only under the same key.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

import pytest
from starweaver import AgentError, ApprovalRequired, StateError, ToolContext, tool
from starweaver.agent import Agent, AgentSession, create_agent
from starweaver.testing import TestModel

KEY_ENV = "STARWEAVER_STATE_KEY"

transfers: list[dict[str, Any]] = []


@tool
async def transfer(ctx: ToolContext, to: str, amount: int) -> str:
    """Move money; a person approves every transfer."""
    if ctx.approval is None:
        raise ApprovalRequired(f"send {amount} to {to}")
    transfers.append({"to": to, "amount": amount})
    return "sent"


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    transfers.clear()


def agent(answer: str = "done", **kwargs: Any) -> Agent:
    return create_agent(model=TestModel.responses([answer]), tools=[transfer], **kwargs)


def exported(**kwargs: Any) -> dict[str, Any]:
    """The state of a session waiting for approval of a transfer to alice."""
    call = {"id": "t1", "name": "transfer", "arguments": {"to": "alice", "amount": 10}}
    model = TestModel.responses([TestModel.tool_call_response([call])])
    session = create_agent(model=model, tools=[transfer], **kwargs).session()
    waiting = asyncio.run(session.run("pay alice"))
    assert waiting.status == "waiting"
    return session.export_state()


def approve_all(session: AgentSession) -> str:
    async def go() -> str:
        snap = await session.hitl.snapshot()
        result = await session.hitl.resume(approvals=[a.approve() for a in snap.approvals])
        return result.output

    return asyncio.run(go())


def canonical_sha256(state: Any) -> str:
    """The checksum of unsigned state, as anyone can compute it."""
    canon = json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canon.encode()).hexdigest()


def forged(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with every transfer redirected to mallory and a fresh
    checksum: what an attacker who can write stored state produces."""
    inner = json.loads(json.dumps(state["state"]).replace('"alice"', '"mallory"'))
    assert inner != state["state"]
    return {"version": state["version"], "state": inner, "digest": canonical_sha256(inner)}


def test_unsigned_state_is_marked_and_its_checksum_is_recomputable() -> None:
    state = exported()
    assert state["digest"].startswith("sha256:")
    # The forging below is real: the checksum is public knowledge.
    assert canonical_sha256(state["state"]) == state["digest"]


def test_tampered_unsigned_state_is_refused_by_default() -> None:
    attack = forged(exported())
    for restorer in (agent(), agent(state_key="secret")):
        with pytest.raises(StateError) as info:
            restorer.session_from_state(attack)
        message = str(info.value)
        assert "unsigned" in message and "allow_unsigned" in message and "state_key" in message
        assert info.value.code == "state"
    assert transfers == []


def test_unsigned_state_is_accepted_only_with_allow_unsigned_and_is_unprotected() -> None:
    state = exported()
    with pytest.raises(StateError, match="unsigned"):
        agent().session_from_state(state)
    assert approve_all(agent().session_from_state(state, allow_unsigned=True)) == "done"
    assert transfers == [{"to": "alice", "amount": 10}]

    # Opting in means trusting whoever could write the state: a forged
    # checksum passes and the edited arguments run.
    transfers.clear()
    assert approve_all(agent().session_from_state(forged(state), allow_unsigned=True)) == "done"
    assert transfers == [{"to": "mallory", "amount": 10}]

    # The checksum still catches an edit that did not recompute it.
    careless = json.loads(json.dumps(state).replace('"alice"', '"mallory"'))
    with pytest.raises(StateError, match="does not match"):
        agent().session_from_state(careless, allow_unsigned=True)


def test_env_key_signs_and_verifies_across_agents(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "from-the-environment")
    state = exported()
    assert state["digest"].startswith("hmac-sha256:")
    assert approve_all(agent().session_from_state(state)) == "done"
    assert transfers == [{"to": "alice", "amount": 10}]

    # The same key passed explicitly verifies it too; the signature covers
    # the arguments, even when unsigned state is allowed.
    assert agent(state_key="from-the-environment").session_from_state(state) is not None
    tampered = json.loads(json.dumps(state).replace('"alice"', '"mallory"'))
    for allow in (False, True):
        with pytest.raises(StateError, match="modified or signed with another key"):
            agent().session_from_state(tampered, allow_unsigned=allow)
    # Swapping the signature for a recomputed checksum is a downgrade to
    # unsigned state, refused as such.
    with pytest.raises(StateError, match="unsigned"):
        agent().session_from_state(forged(state))


def test_wrong_or_missing_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    state = exported(state_key="key-a")
    for allow in (False, True):
        with pytest.raises(StateError, match="signed with another key"):
            agent(state_key="key-b").session_from_state(state, allow_unsigned=allow)
    with pytest.raises(StateError, match="no state key"):
        agent().session_from_state(state, allow_unsigned=True)
    # An explicit key wins over the environment's.
    monkeypatch.setenv(KEY_ENV, "key-a")
    with pytest.raises(StateError, match="signed with another key"):
        agent(state_key="key-b").session_from_state(state)
    assert approve_all(agent().session_from_state(state)) == "done"
    assert transfers == [{"to": "alice", "amount": 10}]


def test_keyed_agent_accepts_only_signed_state() -> None:
    """``allow_unsigned`` is for agents without a key: a keyed agent refuses
    unsigned state, so signed state whose signature was stripped (replaced
    by a recomputed checksum) cannot pass."""
    state = exported()
    for allow in (False, True):
        with pytest.raises(StateError, match="allow_unsigned"):
            agent(state_key="secret").session_from_state(state, allow_unsigned=allow)
    stripped = forged(exported(state_key="secret"))
    assert stripped["digest"].startswith("sha256:")
    for allow in (False, True):
        with pytest.raises(StateError, match="has a state key") as info:
            agent(state_key="secret").session_from_state(stripped, allow_unsigned=allow)
        assert info.value.code == "state"
    assert transfers == []


def test_empty_state_key_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """``state_key=""`` is a key read from an unset variable, not a request
    for unsigned state; an empty environment variable counts as unset."""
    with pytest.raises(AgentError, match="state key is empty"):
        agent(state_key="")
    monkeypatch.setenv(KEY_ENV, "")
    assert exported()["digest"].startswith("sha256:")


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ("[1, 2]", "is a JSON array"),
        ("7", "is a JSON number"),
        ("", "is empty"),
        ("{", "is not JSON"),
        ({}, 'no "version" field'),
        ({"version": 1}, 'no "state" field'),
        ({"version": 1, "state": {}}, 'no "digest" field'),
        ({"version": 1, "state": [], "digest": "sha256:0"}, 'the "state" field of session state is a JSON array'),
        ({"version": "1", "state": {}, "digest": "sha256:0"}, 'the "version" field of session state is a JSON string'),
    ],
)
def test_state_of_another_shape_says_what_is_wrong(state: Any, message: str) -> None:
    with pytest.raises(StateError, match=message) as info:
        agent().session_from_state(state, allow_unsigned=True)
    assert "EOF" not in str(info.value)
    assert '"version", "state" and "digest"' in str(info.value)


@pytest.mark.parametrize("state", [[1, 2], 42, None, 1.5, [{"version": 1}], object()])
def test_state_of_another_type_raises_a_clear_type_error(state: Any) -> None:
    with pytest.raises(TypeError, match=r"takes the state export_state\(\) returned.*not " + type(state).__name__):
        agent().session_from_state(state)


def test_an_old_copy_of_waiting_state_can_be_resumed_again() -> None:
    """Documented: state is a value, not a claim on the run. Every copy of a
    waiting state resumes, so the host keeps track of which is current."""
    state = exported(state_key="secret")
    for _ in range(2):
        assert approve_all(agent(state_key="secret").session_from_state(state)) == "done"
    assert transfers == [{"to": "alice", "amount": 10}] * 2
