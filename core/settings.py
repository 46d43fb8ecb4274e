"""App preferences that are not the user's content (auto-lock time), in a small JSON file.

Nothing here is private: it is read before the vault is unlocked. A damaged or missing
file means defaults, never a failure to start.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from i18n import LANGUAGES
from storage.paths import private_file, settings_path

log = logging.getLogger(__name__)
THEMES = ("system", "light", "dark")


@dataclass
class Settings:
    auto_lock_minutes: int = 10  # 0: never
    api_enabled: bool = False  # the local API is off unless the user switches it on
    api_port: int = 8765
    api_store: bool = False  # keep API conversations in the vault
    language: str = "system"  # the interface: "system", or a code in i18n.LANGUAGES
    theme: str = "system"  # light or dark: "system" (follow it), "light" or "dark"
    # An intranet engine is switched on (which ones is in the vault): the kernel's
    # no-network line (guard.seccomp) then stays off at start-up, as for the local API.
    intranet_engines: bool = False
    http_tools: bool = False  # a tool server at an address is kept: the same, for it
    speech_model: str = ""  # an imported speech model's name (core.speech_models); "": the bundled one

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        path = path or settings_path()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            minutes = int(data.get("auto_lock_minutes", cls.auto_lock_minutes))
            return cls(auto_lock_minutes=max(0, min(minutes, 24 * 60)),
                       api_enabled=bool(data.get("api_enabled", False)),
                       api_port=int(data.get("api_port", 8765)),
                       api_store=bool(data.get("api_store", False)),
                       language=_language(data.get("language")),
                       theme=data.get("theme") if data.get("theme") in THEMES else "system",
                       intranet_engines=bool(data.get("intranet_engines", False)),
                       http_tools=bool(data.get("http_tools", False)),
                       speech_model=str(data.get("speech_model") or "")[:80])
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError, TypeError, AttributeError):
            log.warning("settings file unreadable; using defaults")
            return cls()

    def save(self, path: Path | None = None) -> None:
        path = path or settings_path()
        partial = path.with_name(path.name + ".partial")
        partial.write_text(json.dumps(asdict(self), indent=2), encoding="utf-8")
        private_file(partial)
        os.replace(partial, path)


def _language(value: object) -> str:
    """A language the app ships, or the system's: anything else in the file is ignored."""
    return value if isinstance(value, str) and value in LANGUAGES else "system"
