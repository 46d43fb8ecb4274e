"""What the macOS bundle tells the system (packaging/hearth.spec's Info.plist), read from
the spec itself: without a microphone usage string macOS ends the app the moment dictation
opens the microphone (#41), so its absence must fail here, not on a user's Mac."""

from __future__ import annotations

import ast
from pathlib import Path

SPEC = Path(__file__).resolve().parent.parent / "packaging" / "hearth.spec"


def info_plist() -> dict[str, object]:
    for node in ast.walk(ast.parse(SPEC.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "BUNDLE":
            for keyword in node.keywords:
                if keyword.arg == "info_plist":
                    plist = keyword.value
                    assert isinstance(plist, ast.Dict)
                    return {ast.literal_eval(k): (ast.literal_eval(v) if isinstance(v, ast.Constant) else None)
                            for k, v in zip(plist.keys, plist.values, strict=True) if k is not None}
    raise AssertionError("the spec makes no macOS bundle with an Info.plist")


def test_the_bundle_says_why_it_asks_for_the_microphone_and_nothing_else() -> None:
    plist = info_plist()
    said = plist.get("NSMicrophoneUsageDescription")
    assert isinstance(said, str) and "dictate" in said and "stays on this Mac" in said
    # Hearth asks for nothing else: no camera, contacts, location or network usage strings.
    assert not [key for key in plist if key.startswith("NS") and key.endswith("UsageDescription")
                and key != "NSMicrophoneUsageDescription"]
