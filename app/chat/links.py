"""Which links from an answer may be opened, and what the user is shown before.

An answer is model output, so its links are untrusted. Only web links (``http``,
``https``) and email links (``mailto``) are ever handed to the system: a ``file:`` or
``smb:`` link would open a local file or, on Windows, connect to a share and offer the
user's NTLM credentials to it, past the network guard; ``javascript:``, ``data:`` and
the schemes other programs register (``ms-settings:``, ``vscode:``...) run or open things
the user did not ask for. The confirmation names the site on its own line, in its
ASCII (IDNA, ``xn--``) form, so a look-alike international name cannot pass for another.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QUrl, QUrlQuery

from i18n import translate

WEB_SCHEMES = ("http", "https")
MAIL_SCHEME = "mailto"
SHOWN_ADDRESS = 300  # characters of the full address shown in the confirmation


@dataclass(frozen=True)
class LinkCheck:
    allowed: bool
    text: str  # the confirmation's text when allowed, else why the link was refused


def _ace(host: str) -> str:
    """The host as it goes on the wire: punycode for international names."""
    encoded = bytes(QUrl.toAce(host).data()).decode("ascii", "replace")
    return encoded or host


def _recipients(text: str) -> str:
    found = []
    for recipient in text.split(","):
        local, at, domain = recipient.strip().rpartition("@")
        found.append(f"{local}{at}{_ace(domain)}" if at else recipient.strip())
    return _clip(", ".join(r for r in found if r))


def _clip(text: str) -> str:
    return text if len(text) <= SHOWN_ADDRESS else text[:SHOWN_ADDRESS] + "…"


def _field_labels() -> dict[str, str]:
    """The mailto fields shown on their own lines, by their (lower-case) name in the link."""
    return {"to": translate("chat.links", "To"), "cc": translate("chat.links", "Copy to"),
            "bcc": translate("chat.links", "Hidden copy to"),
            "subject": translate("chat.links", "Subject"), "body": translate("chat.links", "Text")}


def check_link(url: QUrl) -> LinkCheck:
    scheme = url.scheme().lower()
    address = _clip(url.toString(QUrl.ComponentFormattingOption.FullyEncoded))
    if scheme in WEB_SCHEMES and url.isValid():
        host = url.host(QUrl.ComponentFormattingOption.FullyEncoded)
        if not host:
            return LinkCheck(False, translate(
                "chat.links", "This link names no web site, so Hearth did not open it."))
        site = host if url.port() < 0 else f"{host}:{url.port()}"
        notes = []
        if "xn--" in host:
            notes.append(translate("chat.links",
                                   "This is an international name written in ASCII: it may "
                                   "imitate the name of another site."))
        if url.userInfo():
            notes.append(translate("chat.links",
                                   "The address carries a user name, which web pages use to "
                                   "look like another site."))
        return LinkCheck(True, translate(
            "chat.links",
            "Open this link in your web browser?\n\n"
            "Site: {site}\n\n"
            "{notes}"
            "Full address: {address}\n\n"
            "Your browser will connect to the internet; Hearth does not.",
        ).format(site=site, notes="".join(n + "\n\n" for n in notes), address=address))
    if scheme == MAIL_SCHEME and url.isValid():
        # Every field the email program would fill in is shown on its own: a hidden copy to
        # a stranger (bcc) or a prepared body must not hide past the clipped address.
        # Keyed by the field's name in the link, not by the label shown for it.
        labels = _field_labels()
        fields = {"to": _recipients(url.path())}
        shown_labels = {"to": labels["to"]}
        for key, value in QUrlQuery(url).queryItems(QUrl.ComponentFormattingOption.FullyDecoded):
            name = key.strip().lower()
            field = name if name in labels else "other:" + name[:20]
            if field not in shown_labels:
                shown_labels[field] = labels.get(name) or translate(
                    "chat.links", "Other field “{name}”").format(name=name[:20])
            shown_value = _recipients(value) if name in ("to", "cc", "bcc") else _clip(value)
            fields[field] = ", ".join(v for v in (fields.get(field, ""), shown_value) if v)
        nobody = translate("chat.links", "nobody yet")
        lines = "\n".join(
            translate("chat.links", "{label}: {value}").format(
                label=shown_labels[field], value=value or nobody)
            for field, value in fields.items())
        warning = (translate("chat.links",
                             "\n\nThis link adds a hidden recipient: the email would also go "
                             "to someone the other recipients do not see.")
                   if "bcc" in fields else "")
        return LinkCheck(True, translate(
            "chat.links",
            "Write an email with your email program?\n\n"
            "{lines}{warning}\n\n"
            "Nothing is sent until you send it there.",
        ).format(lines=lines, warning=warning))
    named = scheme[:20] if scheme else translate("chat.links", "no scheme")
    return LinkCheck(False, translate(
        "chat.links",
        "Hearth opens only web (http, https) and email (mailto) links; "
        "this link ({scheme}) was not opened.",
    ).format(scheme=named))


PORTAL = ("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
          "org.freedesktop.portal.OpenURI")


def copied() -> str:
    """What the notice says when the address was copied rather than opened."""
    return translate("chat.links",
                     "Hearth runs with no network at all, and so would a browser it started "
                     "itself, so the address was copied instead: paste it into your browser.")


def open_outside(url: QUrl) -> str | None:
    """Hand a link the user confirmed to the desktop; None when it went, else what to say.

    Under the kernel line (guard.seccomp, Linux) every program Hearth starts inherits the
    filter: a browser started from here could not connect. So the desktop portal is asked
    over D-Bus (a Unix socket) to open it, from outside Hearth's processes; where there
    is no portal, the address is copied for the user to paste."""
    from PySide6.QtGui import QDesktopServices, QGuiApplication

    from guard import seccomp

    if not seccomp.RESTRICTION.active:
        QDesktopServices.openUrl(url)
        return None
    if _portal_open(url):
        return None
    QGuiApplication.clipboard().setText(url.toString(QUrl.ComponentFormattingOption.FullyEncoded))
    return copied()


def _portal_open(url: QUrl) -> bool:
    try:
        from PySide6.QtDBus import QDBusConnection, QDBusInterface, QDBusMessage
    except ImportError:
        return False
    bus = QDBusConnection.sessionBus()
    if not bus.isConnected():
        return False
    portal = QDBusInterface(*PORTAL, bus)
    if not portal.isValid():
        return False
    reply = portal.call("OpenURI", "", url.toString(QUrl.ComponentFormattingOption.FullyEncoded), {})
    return reply.type() != QDBusMessage.MessageType.ErrorMessage
