"""Fileops-loaded skills (starweaver.skills): scans through the runtime, the
skills toolset in real runs, and the wire forms."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

import pytest
from starweaver.agent import create_agent
from starweaver.skills import (
    SkillPackage,
    SkillRegistry,
    SkillReloadBinding,
    SkillReloadChange,
    SkillScanDiagnostic,
    SkillScanReport,
    SkillSourceScope,
    SkillToolset,
    skill_package_from_dict,
    skill_toolset,
)
from starweaver.testing import TestModel


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def skill(name: str, description: str, *extra: str, body: str = "Body.") -> str:
    return "\n".join(["---", f"name: {name}", f"description: {description}", *extra, "---", body, ""])


class SpecEnvironment:
    """A stand-in for an environment object: anything with ``_to_spec()``."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files = dict(files)

    def _to_spec(self) -> dict[str, Any]:
        return {"kind": "virtual", "files": self.files}


class DictEnvironment:
    """An environment exposing its spec through ``to_dict()``."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files = dict(files)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "virtual", "files": self.files}


def virtual(files: Mapping[str, str]) -> dict[str, Any]:
    return {"kind": "virtual", "files": dict(files)}


def test_scope_constructors() -> None:
    cases = [
        (SkillSourceScope.new("r"), {"root": "r"}),
        (SkillSourceScope("r"), {"root": "r"}),
        (SkillSourceScope.built_in("r"), {"root": "r", "kind": "built_in"}),
        (SkillSourceScope.user_shared("r"), {"root": "r", "kind": "user_shared"}),
        (SkillSourceScope.user_tool("r"), {"root": "r", "kind": "user_tool"}),
        (SkillSourceScope.workspace_shared("r"), {"root": "r", "kind": "workspace_shared"}),
        (SkillSourceScope.workspace_tool("r"), {"root": "r", "kind": "workspace_tool"}),
        (SkillSourceScope.new("r").with_directories("a", "b"), {"root": "r", "directories": ["a", "b"]}),
        (SkillSourceScope.new("r").with_directories(), {"root": "r", "directories": []}),
    ]
    for scope, spec in cases:
        assert scope._to_spec() == spec  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(ValueError, match='unknown source kind "team"'):
        SkillRegistry.scan(virtual({}), [SkillSourceScope("r", "team")])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="directories"):
        SkillSourceScope("r", directories="skills")  # type: ignore[arg-type]


def test_precedence() -> None:
    env = virtual(
        {
            "builtin/skills/a/SKILL.md": skill("a", "built-in"),
            "user/.agents/skills/a/SKILL.md": skill("a", "user shared"),
            "user/skills/a/SKILL.md": skill("a", "user tool"),
            "ws/.agents/skills/a/SKILL.md": skill("a", "workspace shared"),
            "ws/skills/b/SKILL.md": skill("b", "workspace tool"),
            "ws/.agents/skills/b/SKILL.md": skill("b", "workspace shared"),
            "c1/skills/c/SKILL.md": skill("c", "first custom"),
            "c2/skills/c/SKILL.md": skill("c", "second custom"),
            "d/.agents/skills/d/SKILL.md": skill("d", "shared dir"),
            "d/skills/d/SKILL.md": skill("d", "tool dir"),
        }
    )
    scopes = [
        SkillSourceScope.new("c1"),
        SkillSourceScope.workspace_shared("ws"),
        SkillSourceScope.workspace_tool("ws"),
        SkillSourceScope.user_tool("user"),
        SkillSourceScope.new("c2"),
        SkillSourceScope.user_shared("user"),
        SkillSourceScope.built_in("builtin"),
        SkillSourceScope.new("d"),
    ]
    registry = SkillRegistry.scan(env, scopes)
    assert [(p.name, p.description) for p in registry] == [
        ("a", "workspace shared"),
        ("b", "workspace tool"),
        ("c", "second custom"),
        ("d", "tool dir"),
    ]
    a = registry.get("a")
    assert a is not None and a.body is None and not a.activated and a.path == "ws/.agents/skills/a/SKILL.md"
    assert len(registry) == 4 and "b" in registry and registry.get("zzz") is None


# The seed's first example: scan the summaries, activate one for its body.
def test_scan_and_activate_seed_example() -> None:
    env = SpecEnvironment(
        {
            "skills/research/SKILL.md": "---\nname: research\ndescription: Gather and cite sources\n---\nPrefer primary sources and cite evidence.\n"
        }
    )
    registry = SkillRegistry.scan(env, [SkillSourceScope.new("")])
    active = SkillRegistry.activate(env, "skills/research/SKILL.md")
    research = registry.get("research")
    assert research is not None and research.description == "Gather and cite sources"
    assert active.body == "Prefer primary sources and cite evidence."
    assert (
        active.activated and active.summary_line() == "- research: Gather and cite sources (skills/research/SKILL.md)"
    )


def test_environment_inputs() -> None:
    files = {"skills/x/SKILL.md": skill("x", "X", "version: 2", "tags: [a, b]")}
    for env in (SpecEnvironment(files), DictEnvironment(files), virtual(files)):
        x = SkillRegistry.scan(env, [SkillSourceScope.new("")]).get("x")
        assert x is not None and dict(x.metadata) == {"version": 2, "tags": ["a", "b"]}
    with pytest.raises(TypeError, match="environment must be"):
        SkillRegistry.scan(42, [SkillSourceScope.new("")])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="SkillSourceScope"):
        SkillRegistry.scan(virtual(files), [{"root": ""}])  # type: ignore[list-item]
    with pytest.raises(ValueError, match='unknown kind "cloud"'):
        SkillRegistry.scan({"kind": "cloud"}, [])
    with pytest.raises(ValueError, match="invalid source scope"):
        SkillRegistry.scan(virtual(files), [SkillSourceScope.new("../up")])


def test_scan_with_report_diagnostics() -> None:
    env = virtual(
        {
            ".agents/skills/dup/SKILL.md": skill("dup", "shared"),
            "skills/dup/SKILL.md": skill("dup", "tool"),
            "skills/bad/SKILL.md": "no frontmatter",
            "skills/noname/SKILL.md": "---\ndescription: d\n---\n",
            "skills/good/SKILL.md": skill("good", "fine"),
        }
    )
    report = SkillRegistry.scan_with_report(env, [SkillSourceScope.new("")])
    assert [p.name for p in report.registry] == ["dup", "good"]
    assert report.diagnostics == (
        SkillScanDiagnostic(
            "invalid_skill",
            "custom",
            "skills/bad/SKILL.md",
            "invalid skill markdown: expected frontmatter delimited by ---",
        ),
        SkillScanDiagnostic(
            "duplicate_overridden",
            "custom",
            "skills/dup/SKILL.md",
            "higher-precedence skill replaced an earlier skill with the same name",
            name="dup",
            previous_path=".agents/skills/dup/SKILL.md",
        ),
        SkillScanDiagnostic("invalid_skill", "custom", "skills/noname/SKILL.md", "missing required skill field: name"),
    )
    # A plain scan is strict: the first bad file fails it.
    with pytest.raises(ValueError, match="expected frontmatter delimited by ---"):
        SkillRegistry.scan(env, [SkillSourceScope.new("")])


def test_frontmatter_errors() -> None:
    cases = {
        "# no frontmatter": "expected frontmatter delimited by ---",
        "---\nname: [\n---\n": "invalid skill frontmatter",
        "---\nname: 5\ndescription: d\n---\n": "name must be a string, not a number",
        "---\nname: n\n---\n": "missing required skill field: description",
        "---\nname: x\nname: y\ndescription: d\n---\n": "already defined",
    }
    for content, message in cases.items():
        env = virtual({"skills/s/SKILL.md": content})
        with pytest.raises(ValueError, match=message):
            SkillRegistry.activate(env, "skills/s/SKILL.md")
        report = SkillRegistry.scan_with_report(env, [SkillSourceScope.new("")])
        assert len(report.registry) == 0 and report.diagnostics[0].kind == "invalid_skill"
        assert message in report.diagnostics[0].message
    with pytest.raises(ValueError, match="not found"):
        SkillRegistry.activate(virtual({}), "skills/none/SKILL.md")
    with pytest.raises(ValueError, match=r"\.\."):
        SkillRegistry.activate(virtual({}), "../etc/SKILL.md")


# The seed's reload example: a changed description is a modified skill, and
# the reload is published on the session's context.
def test_reload_with_report_and_events() -> None:
    files = {
        "skills/research/SKILL.md": "---\nname: research\ndescription: Gather sources\n---\nPrefer primary sources.\n",
        "skills/gone/SKILL.md": skill("gone", "bye"),
        "skills/same/SKILL.md": skill("same", "unchanged"),
    }
    registry = SkillRegistry.scan(virtual(files), [SkillSourceScope.new("")])
    files["skills/research/SKILL.md"] = (
        "---\nname: research\ndescription: Gather sources with citations\n---\nPrefer primary sources.\n"
    )
    del files["skills/gone/SKILL.md"]
    files["skills/new/SKILL.md"] = skill("new", "hello")
    files["skills/broken/SKILL.md"] = "oops"

    session = create_agent(model=TestModel.responses(["ok"])).session()
    report = registry.reload_with_report(virtual(files), [SkillSourceScope.new("")], context=session.context)
    assert report.changes == (
        SkillReloadChange("removed", "gone", previous_path="skills/gone/SKILL.md"),
        SkillReloadChange("added", "new", path="skills/new/SKILL.md"),
        SkillReloadChange(
            "modified", "research", previous_path="skills/research/SKILL.md", path="skills/research/SKILL.md"
        ),
    )
    assert [d.kind for d in report.diagnostics] == ["invalid_skill"]
    assert [p.name for p in report.registry] == ["new", "research", "same"]
    assert [p.name for p in registry] == ["gone", "research", "same"]  # unchanged

    active = SkillRegistry.activate(virtual(files), "skills/new/SKILL.md", context=session.context)
    assert active.body == "Body."
    events = session.context.take_events()
    assert [e.kind for e in events] == ["skills_reloaded", "skill_activated"]
    reloaded = events[0].payload
    assert reloaded["package_count"] == 3 and len(reloaded["changes"]) == 3 and len(reloaded["diagnostics"]) == 1
    assert reloaded["packages"][0] == {
        "name": "new",
        "description": "hello",
        "path": "skills/new/SKILL.md",
        "activated": False,
    }
    assert dict(events[1].payload) == {
        "name": "new",
        "description": "hello",
        "path": "skills/new/SKILL.md",
        "body_bytes": 5,
        "metadata": {},
    }


def test_instruction_text_and_toolset() -> None:
    empty = skill_toolset([])
    assert isinstance(empty, SkillToolset) and empty.name == "skills" and empty.id == "skills" and not empty.tools
    model = TestModel.responses(["ok"])
    run(create_agent(model=model, toolsets=[empty]).run("hi"))
    instructions = model.captured_messages()[0][0]["instructions"]
    assert instructions == (
        '<tool-instruction name="skills">No fileops-loaded skills are currently available.</tool-instruction>'
    )

    pkgs = [
        SkillPackage("writing", "Edit prose", "skills/writing/SKILL.md"),
        SkillPackage("research", "Gather sources", "skills/research/SKILL.md"),
    ]
    model = TestModel.responses(["ok"])
    run(create_agent(model=model, toolsets=[skill_toolset(pkgs)]).run("hi"))
    instructions = model.captured_messages()[0][0]["instructions"]
    assert instructions.startswith('<tool-instruction name="skills"><skill-routing-policy>\nSkill use is mandatory')
    assert (
        "<available-skills>\nAvailable fileops-loaded skills:\n"
        "- research: Gather sources (skills/research/SKILL.md)\n"
        "- writing: Edit prose (skills/writing/SKILL.md)\n</available-skills>"
    ) in instructions
    assert instructions.endswith("</skill-activation-procedure></tool-instruction>")
    assert model.captured_params()[0]["tools"] == []
    with pytest.raises(TypeError, match="SkillPackages"):
        skill_toolset(["research"])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        skill_toolset({"name": "x"})  # type: ignore[arg-type]


# The seed's second example: a scan report's toolset publishes the report
# as skills_scanned when the run starts, and the model request carries the
# skills instruction block.
def test_agent_run_publishes_the_scan_report() -> None:
    env = virtual(
        {
            ".agents/skills/research/SKILL.md": "---\nname: research\ndescription: Shared research\n---\nShared instructions.\n",
            "skills/research/SKILL.md": "---\nname: research\ndescription: Tool-specific research\n---\nTool instructions.\n",
        }
    )
    report = SkillRegistry.scan_with_report(env, [SkillSourceScope.new("")])
    assert isinstance(report, SkillScanReport)
    research = report.registry.get("research")
    assert research is not None and research.description == "Tool-specific research"
    assert any(d.kind == "duplicate_overridden" for d in report.diagnostics)

    model = TestModel.responses(["ok"])
    events: list[dict[str, Any]] = []
    toolset = report.toolset()
    assert toolset.publishes_scan and not report.registry.toolset().publishes_scan

    async def main() -> None:
        await create_agent(model=model, toolsets=[toolset]).session().run("hello", on_event=events.append)

    run(main())
    scanned = [
        e["custom"]["payload"] for e in events if e.get("kind") == "custom" and e["custom"]["kind"] == "skills_scanned"
    ]
    assert len(scanned) == 1
    assert scanned[0]["package_count"] == 1
    assert scanned[0]["packages"] == [
        {
            "name": "research",
            "description": "Tool-specific research",
            "path": "skills/research/SKILL.md",
            "activated": False,
        }
    ]
    assert scanned[0]["diagnostics"][0]["kind"] == "duplicate_overridden"
    instructions = model.captured_messages()[0][0]["instructions"]
    assert "- research: Tool-specific research (skills/research/SKILL.md)" in instructions


# The packages and diagnostics Python sends in a toolset spec are the same
# JSON the runtime wrote (dict and JSON round trips agree).
def test_wire_forms_round_trip() -> None:
    env = virtual({"skills/x/SKILL.md": skill("x", "X", "owner: {team: docs}"), "skills/y/SKILL.md": "bad"})
    raw = __import__("starweaver._capi", fromlist=["skills_scan"]).skills_scan(
        {"environment": env, "scopes": [{"root": ""}], "report": True}
    )
    report = SkillRegistry.scan_with_report(env, [SkillSourceScope.new("")])
    assert [p.to_dict() for p in report.registry] == raw["packages"]
    assert [d.to_dict() for d in report.diagnostics] == raw["diagnostics"]
    spec = report.toolset()._extra_spec(lambda _p: None)  # pyright: ignore[reportPrivateUsage]
    assert spec["kind"] == "skills"
    assert json.loads(json.dumps(spec["skills"])) == {
        "packages": raw["packages"],
        "publish_scan": True,
        "diagnostics": raw["diagnostics"],
    }
    assert skill_package_from_dict(raw["packages"][0]) == report.registry.packages()[0]


def test_scan_a_local_environment(tmp_path: Any) -> None:
    from starweaver.environment import LocalEnvironment

    (tmp_path / "skills" / "x").mkdir(parents=True)
    (tmp_path / "skills" / "x" / "SKILL.md").write_text(skill("x", "From disk"))
    registry = SkillRegistry.scan(LocalEnvironment(tmp_path, read_only=True), [SkillSourceScope.new("")])
    x = registry.get("x")
    assert x is not None and x.description == "From disk"
    with pytest.raises(ValueError, match="root"):
        SkillRegistry.scan({"kind": "local", "root": str(tmp_path / "missing")}, [SkillSourceScope.new("")])


def test_reload_if_due_with_a_binding() -> None:
    files = {"skills/a/SKILL.md": skill("a", "one")}
    scopes = [SkillSourceScope.new("")]
    registry = SkillRegistry.scan(virtual(files), scopes)
    files["skills/a/SKILL.md"] = skill("a", "two")
    session = create_agent(model=TestModel.responses(["ok"])).session()

    binding = SkillReloadBinding(interval_ms=60_000, debounce_ms=500, last_refresh_ms=1000)
    assert registry.reload_if_due(virtual(files), scopes, binding, 1200, context=session.context) is None
    binding.inventory_changed(3, 1300)
    assert binding.pending_inventory_version == 3 and binding.pending_since_ms == 1300
    assert registry.reload_if_due(virtual(files), scopes, binding, 1799) is None
    report = registry.reload_if_due(virtual(files), scopes, binding, 1800, context=session.context)
    assert report is not None and [c.kind for c in report.changes] == ["modified"]
    assert binding.inventory_version == 3 and binding.pending_inventory_version == 0 and binding.last_refresh_ms == 1800
    (event,) = session.context.take_events()
    assert event.kind == "skills_reloaded"
    assert {k: event.payload[k] for k in ("reload_scheduled", "reload_reason", "reload_ms", "inventory_version")} == {
        "reload_scheduled": True,
        "reload_reason": "inventory_changed",
        "reload_ms": 1800,
        "inventory_version": 3,
    }
    report = registry.reload_if_due(virtual(files), scopes, binding, 61_800, context=session.context)
    assert report is not None and session.context.take_events()[0].payload["reload_reason"] == "interval_elapsed"
    with pytest.raises(TypeError, match="SkillReloadBinding"):
        registry.reload_if_due(virtual(files), scopes, {"interval_ms": 1}, 1)  # type: ignore[arg-type]
