"""Projects (#40): one matter's chats kept together with what they start with: its
instructions (the system prompt), its model or intranet engine, its collections, its
sampling and its tools. A new chat in a project starts with all of that; a chat belongs to
a project by its settings (``"project"``), so a chat can be moved between projects, and a
project removed leaves its chats where they are, in no project.

The projects themselves are kept in the vault, encrypted with the library's private
preferences. Ready-made instructions for common work, in the interface's language,
start a project's instructions (``templates``); they are only a start, to be edited.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from i18n import translate

PREFERENCE = "projects"
SETTING = "project"  # a chat's project, by id
MAX_NAME = 80


class ProjectError(ValueError):
    """Why a project cannot be made or changed, in the user's words."""


@dataclass(frozen=True)
class Project:
    id: str
    name: str
    instructions: str = ""
    engine: str = ""  # "" for the local model
    engine_model: str = ""
    collections: tuple[int, ...] = ()
    sampling: dict[str, Any] = field(default_factory=dict)
    tools: tuple[str, ...] = ()  # tool servers on in its chats (Hearth's own go by the chat's switch)

    def chat_settings(self) -> dict[str, Any]:
        """The settings a new chat in this project starts with."""
        settings: dict[str, Any] = {SETTING: self.id}
        if self.instructions.strip():
            settings["system_prompt"] = self.instructions
        if self.engine:
            settings["engine"], settings["engine_model"] = self.engine, self.engine_model
        if self.collections:
            settings["collections"] = list(self.collections)
        if self.sampling:
            settings["sampling"] = dict(self.sampling)
        if self.tools:
            settings["tools"] = list(self.tools)
        return settings

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["collections"], data["tools"] = list(self.collections), list(self.tools)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Project | None:
        if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not isinstance(data.get("name"), str):
            return None

        def text(key: str) -> str:
            return data[key] if isinstance(data.get(key), str) else ""

        collections = tuple(c for c in data.get("collections") or [] if isinstance(c, int) and not isinstance(c, bool))
        tools = tuple(t for t in data.get("tools") or [] if isinstance(t, str))
        sampling = data["sampling"] if isinstance(data.get("sampling"), dict) else {}
        return cls(data["id"], data["name"], text("instructions"), text("engine"), text("engine_model"),
                   collections, sampling, tools)


def project_of(chat: Any) -> str:
    """The id of the project a chat is in ("" for none)."""
    value = (chat.settings if chat is not None else {}).get(SETTING)
    return value if isinstance(value, str) else ""


class Projects:
    """The vault's projects, kept with the library's preferences (any thread)."""

    def __init__(self, library: Any) -> None:
        self._library = library

    def all(self) -> list[Project]:
        kept = self._library.preferences().get(PREFERENCE)
        found = [p for p in (Project.from_dict(d) for d in (kept if isinstance(kept, list) else [])) if p]
        return sorted(found, key=lambda p: p.name.casefold())

    def get(self, project_id: str) -> Project | None:
        return next((p for p in self.all() if p.id == project_id), None)

    def find(self, name: str) -> Project | None:
        wanted = " ".join(name.split()).casefold()
        return next((p for p in self.all() if p.name.casefold() == wanted), None)

    def add(self, name: str, instructions: str = "", **settings: Any) -> Project:
        name = self._free_name(name)
        project = Project(secrets.token_hex(8), name, instructions, **settings)
        self._store([*self.all(), project])
        return project

    def save(self, project: Project) -> Project:
        """Keep a project's changes (its name still its own)."""
        others = [p for p in self.all() if p.id != project.id]
        project = replace(project, name=self._free_name(project.name, others))
        self._store([*others, project])
        return project

    def remove(self, project_id: str) -> None:
        """The project goes; its chats stay, in no project (``project_of`` finds none)."""
        self._store([p for p in self.all() if p.id != project_id])

    def _free_name(self, name: str, others: Sequence[Project] | None = None) -> str:
        name = " ".join(name.split())[:MAX_NAME]
        if not name:
            raise ProjectError(translate("core.projects", "A project needs a name."))
        taken = {p.name.casefold() for p in (self.all() if others is None else others)}
        if name.casefold() in taken:
            raise ProjectError(translate("core.projects", "There is a project named {name} already.").format(
                name=name))
        return name

    def _store(self, projects: list[Project]) -> None:
        self._library.set_preference(PREFERENCE, [p.as_dict() for p in projects])


def templates() -> list[tuple[str, str]]:
    """Ready-made instructions for common work: (name, instructions), in the interface's
    language; a start, to be edited."""
    return [
        (translate("core.projects", "Summarise"),
         translate("core.projects", "Summarise what you are given in a few short paragraphs: the main points "
                   "first, then the details that matter. Quote figures, dates and names exactly. Say what is "
                   "unclear or missing rather than guessing.")),
        (translate("core.projects", "Translate between Chinese and English"),
         translate("core.projects", "Translate what you are given: Chinese into English, English into "
                   "Simplified Chinese. Keep the meaning, the tone and the layout; keep names, figures and "
                   "terms of art exact, and give the original in brackets where a term has no settled "
                   "translation.")),
        (translate("core.projects", "Draft a letter"),
         translate("core.projects", "Draft clear, courteous letters from the notes you are given. Ask for the "
                   "recipient, the purpose and any deadline if they are missing. Keep to one page unless asked "
                   "otherwise, and mark anything you had to assume.")),
        (translate("core.projects", "Extract dates and parties"),
         translate("core.projects", "From the documents you are given, list every party (people and "
                   "organisations, with their roles) and every date or deadline (with what happens then), "
                   "each with the document and page it comes from. Do not add anything the documents do not "
                   "say.")),
        (translate("core.projects", "Compare two documents"),
         translate("core.projects", "Compare the two documents you are given: what they agree on, where they "
                   "differ (quote both), and what one has that the other lacks. Cite the page of each point. "
                   "End with the differences that matter most.")),
    ]
