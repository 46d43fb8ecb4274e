<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>chat.attachments</name>
    <message numerus="yes">
        <source>%n pages</source>
        <translation>
            <numerusform>%n page</numerusform>
            <numerusform>%n pages</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>chat.controller</name>
    <message numerus="yes">
        <source>{name} · {backend} · context %n tokens</source>
        <translation>
            <numerusform>{name} · {backend} · context %n token</numerusform>
            <numerusform>{name} · {backend} · context %n tokens</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>chat.conversation</name>
    <message numerus="yes">
        <source>{said} %n sources below.</source>
        <translation>
            <numerusform>{said} %n source below.</numerusform>
            <numerusform>{said} %n sources below.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n tokens · {speed} tokens/s · first token {first} s</source>
        <translation>
            <numerusform>%n token · {speed} tokens/s · first token {first} s</numerusform>
            <numerusform>%n tokens · {speed} tokens/s · first token {first} s</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Show %n earlier messages ({hidden} not shown)</source>
        <translation>
            <numerusform>Show %n earlier message ({hidden} not shown)</numerusform>
            <numerusform>Show %n earlier messages ({hidden} not shown)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>chat.projects_dialog</name>
    <message numerus="yes">
        <source>%n collection(s)</source>
        <translation>
            <numerusform>%n collection</numerusform>
            <numerusform>%n collections</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n tool server(s)</source>
        <translation>
            <numerusform>%n tool server</numerusform>
            <numerusform>%n tool servers</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>“{name}” and %n chat(s) were written to {file}, encrypted.</source>
        <translation>
            <numerusform>“{name}” and %n chat were written to {file}, encrypted.</numerusform>
            <numerusform>“{name}” and %n chats were written to {file}, encrypted.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Imported “{name}” with %n chat(s).</source>
        <translation>
            <numerusform>Imported “{name}” with %n chat.</numerusform>
            <numerusform>Imported “{name}” with %n chats.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n chat(s) written to {file}, unencrypted.</source>
        <translation>
            <numerusform>%n chat written to {file}, unencrypted.</numerusform>
            <numerusform>%n chats written to {file}, unencrypted.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>chat.tools</name>
    <message numerus="yes">
        <source>Used %n tool call(s)</source>
        <translation>
            <numerusform>Used %n tool call</numerusform>
            <numerusform>Used %n tool calls</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cli.commands</name>
    <message numerus="yes">
        <source>%n chunks</source>
        <translation>
            <numerusform>%n chunk</numerusform>
            <numerusform>%n chunks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n files</source>
        <translation>
            <numerusform>%n file</numerusform>
            <numerusform>%n files</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n chats</source>
        <translation>
            <numerusform>%n chat</numerusform>
            <numerusform>%n chats</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n messages</source>
        <translation>
            <numerusform>%n message</numerusform>
            <numerusform>%n messages</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The token from {where} must be at least %n characters, without spaces.</source>
        <translation>
            <numerusform>The token from {where} must be at least %n character, without spaces.</numerusform>
            <numerusform>The token from {where} must be at least %n characters, without spaces.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cli.engines</name>
    <message numerus="yes">
        <source>{name} at {where} is sent the last %n question(s) you wrote in your chats ({chats}), and nothing else.</source>
        <translation>
            <numerusform>{name} at {where} is sent the last question you wrote in your chats ({chats}), and nothing else.</numerusform>
            <numerusform>{name} at {where} is sent the last %n questions you wrote in your chats ({chats}), and nothing else.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cli.projects</name>
    <message numerus="yes">
        <source>wrote {name} and %n chat(s) to {file}, encrypted</source>
        <translation>
            <numerusform>wrote {name} and %n chat to {file}, encrypted</numerusform>
            <numerusform>wrote {name} and %n chats to {file}, encrypted</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>imported {name} with %n chat(s)</source>
        <translation>
            <numerusform>imported {name} with %n chat</numerusform>
            <numerusform>imported {name} with %n chats</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>wrote %n chat(s) of {name} to {file}, UNENCRYPTED</source>
        <translation>
            <numerusform>wrote %n chat of {name} to {file}, UNENCRYPTED</numerusform>
            <numerusform>wrote %n chats of {name} to {file}, UNENCRYPTED</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cli.selftest</name>
    <message numerus="yes">
        <source>embedding: %n dimensions ({model})</source>
        <translation>
            <numerusform>embedding: %n dimension ({model})</numerusform>
            <numerusform>embedding: %n dimensions ({model})</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Chinese-English dictionary: %n words</source>
        <translation>
            <numerusform>Chinese-English dictionary: %n word</numerusform>
            <numerusform>Chinese-English dictionary: %n words</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>core.answers</name>
    <message numerus="yes">
        <source>%n passages found in your documents did not fit in this model&apos;s context and were left out of this answer. A larger context (Models) or a new chat leaves room for them.</source>
        <translation>
            <numerusform>%n passage found in your documents did not fit in this model&apos;s context and was left out of this answer. A larger context (Models) or a new chat leaves room for it.</numerusform>
            <numerusform>%n passages found in your documents did not fit in this model&apos;s context and were left out of this answer. A larger context (Models) or a new chat leaves room for them.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>core.attachments</name>
    <message numerus="yes">
        <source>%n pages read by text recognition</source>
        <translation>
            <numerusform>%n page read by text recognition</numerusform>
            <numerusform>%n pages read by text recognition</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n scanned pages left unread</source>
        <translation>
            <numerusform>%n scanned page left unread</numerusform>
            <numerusform>%n scanned pages left unread</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>core.compare</name>
    <message numerus="yes">
        <source>{setup}: serves %n people at once with the first word within {target:.1f} s.</source>
        <translation>
            <numerusform>{setup}: serves %n person at a time with the first word within {target:.1f} s.</numerusform>
            <numerusform>{setup}: serves %n people at once with the first word within {target:.1f} s.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>core.documents</name>
    <message numerus="yes">
        <source>%n pages read by text recognition (OCR)</source>
        <translation>
            <numerusform>%n page read by text recognition (OCR)</numerusform>
            <numerusform>%n pages read by text recognition (OCR)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>core.passphrase</name>
    <message numerus="yes">
        <source>Use at least %n characters; four or more unrelated words are best.</source>
        <translation>
            <numerusform>Use at least %n character; four or more unrelated words are best.</numerusform>
            <numerusform>Use at least %n characters; four or more unrelated words are best.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Use at most %n bytes.</source>
        <translation>
            <numerusform>Use at most %n byte.</numerusform>
            <numerusform>Use at most %n bytes.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>core.turns</name>
    <message numerus="yes">
        <source>This chat is longer than the model&apos;s context: the %n oldest messages were left out of this answer.</source>
        <translation>
            <numerusform>This chat is longer than the model&apos;s context: the oldest message was left out of this answer.</numerusform>
            <numerusform>This chat is longer than the model&apos;s context: the %n oldest messages were left out of this answer.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>documents.dialog</name>
    <message numerus="yes">
        <source>Take %n files out of “{name}” and its index? The files themselves are not touched; add them again to bring them back. Copies stay in the automatic backups made before now, until a passphrase change replaces them.</source>
        <translation>
            <numerusform>Take %n file out of “{name}” and its index? The files themselves are not touched; add it again to bring it back. Copies stay in the automatic backups made before now, until a passphrase change replaces them.</numerusform>
            <numerusform>Take %n files out of “{name}” and its index? The files themselves are not touched; add them again to bring them back. Copies stay in the automatic backups made before now, until a passphrase change replaces them.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n passages</source>
        <translation>
            <numerusform>%n passage</numerusform>
            <numerusform>%n passages</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>reading page {page} of %n (text recognition)</source>
        <translation>
            <numerusform>reading page {page} of %n (text recognition)</numerusform>
            <numerusform>reading page {page} of %n (text recognition)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>{indexed} of %n files indexed, {passages}.</source>
        <translation>
            <numerusform>{indexed} of %n file indexed, {passages}.</numerusform>
            <numerusform>{indexed} of %n files indexed, {passages}.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>{done} of %n files</source>
        <translation>
            <numerusform>{done} of %n file</numerusform>
            <numerusform>{done} of %n files</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>engines.compare</name>
    <message numerus="yes">
        <source>{engines}: each is sent the last %n question(s) you wrote in your chats ({chats}), and nothing else (no answer, no document). Measure?</source>
        <translation>
            <numerusform>{engines}: each is sent the last question you wrote in your chats ({chats}), and nothing else (no answer, no document). Measure?</numerusform>
            <numerusform>{engines}: each is sent the last %n questions you wrote in your chats ({chats}), and nothing else (no answer, no document). Measure?</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>engines.dialog</name>
    <message numerus="yes">
        <source>{name}: reachable and trusted; %n model(s).</source>
        <translation>
            <numerusform>{name}: reachable and trusted; %n model.</numerusform>
            <numerusform>{name}: reachable and trusted; %n models.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>engines.window</name>
    <message numerus="yes">
        <source>{where} · %n blocked</source>
        <translation>
            <numerusform>{where} · %n blocked</numerusform>
            <numerusform>{where} · %n blocked</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>inference.errors</name>
    <message numerus="yes">
        <source>This message is too long for the model: it needs %n tokens and the model&apos;s context holds {n_ctx}, with room left for the answer. Shorten it or split it into parts.</source>
        <translation>
            <numerusform>This message is too long for the model: it needs %n token and the model&apos;s context holds {n_ctx}, with room left for the answer. Shorten it or split it into parts.</numerusform>
            <numerusform>This message is too long for the model: it needs %n tokens and the model&apos;s context holds {n_ctx}, with room left for the answer. Shorten it or split it into parts.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>inference.fit</name>
    <message numerus="yes">
        <source>{verdict}: needs about {need:,.0f} MB, {have:,.0f} MB free (a context of at most %n tokens fits)</source>
        <translation>
            <numerusform>{verdict}: needs about {need:,.0f} MB, {have:,.0f} MB free (a context of at most %n token fits)</numerusform>
            <numerusform>{verdict}: needs about {need:,.0f} MB, {have:,.0f} MB free (a context of at most %n tokens fits)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>shell.privacy_dialog</name>
    <message numerus="yes">
        <source>&lt;b&gt;{name}&lt;/b&gt;: %n call(s), {sent} to it, {received} from it; {state}</source>
        <translation>
            <numerusform>&lt;b&gt;{name}&lt;/b&gt;: %n call, {sent} to it, {received} from it; {state}</numerusform>
            <numerusform>&lt;b&gt;{name}&lt;/b&gt;: %n calls, {sent} to it, {received} from it; {state}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>; through Hearth&apos;s relay to {where}: %n connection(s), {sent} out, {received} in</source>
        <translation>
            <numerusform>; through Hearth&apos;s relay to {where}: %n connection, {sent} out, {received} in</numerusform>
            <numerusform>; through Hearth&apos;s relay to {where}: %n connections, {sent} out, {received} in</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>; %n refused (not an address you gave it)</source>
        <translation>
            <numerusform>; %n refused (not an address you gave it)</numerusform>
            <numerusform>; %n refused (not addresses you gave it)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>storage.crypto</name>
    <message numerus="yes">
        <source>The passphrase is longer than %n bytes.</source>
        <translation>
            <numerusform>The passphrase is longer than %n byte.</numerusform>
            <numerusform>The passphrase is longer than %n bytes.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>storage.documents.parsers</name>
    <message numerus="yes">
        <source>%n pages (the limit is {limit})</source>
        <translation>
            <numerusform>%n page (the limit is {limit})</numerusform>
            <numerusform>%n pages (the limit is {limit})</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>vault.flows</name>
    <message numerus="yes">
        <source>Locked after %n minutes without use.</source>
        <translation>
            <numerusform>Locked after %n minute without use.</numerusform>
            <numerusform>Locked after %n minutes without use.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>A fresh automatic backup was made and the %n older ones were erased.</source>
        <translation>
            <numerusform>A fresh automatic backup was made and the older one was erased.</numerusform>
            <numerusform>A fresh automatic backup was made and the %n older ones were erased.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n copies kept by restores or backups now open with the new passphrase only.</source>
        <translation>
            <numerusform>%n copy kept by a restore or backup now opens with the new passphrase only.</numerusform>
            <numerusform>%n copies kept by restores or backups now open with the new passphrase only.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n of Hearth&apos;s own copies could not be changed (see the log) and still open with the old passphrase: they are in {folder} and beside the vault file.</source>
        <translation>
            <numerusform>%n of Hearth&apos;s own copies could not be changed (see the log) and still opens with the old passphrase: they are in {folder} and beside the vault file.</numerusform>
            <numerusform>%n of Hearth&apos;s own copies could not be changed (see the log) and still open with the old passphrase: they are in {folder} and beside the vault file.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>All %n messages decrypt and the vault file is sound.</source>
        <translation>
            <numerusform>The one message decrypts and the vault file is sound.</numerusform>
            <numerusform>All %n messages decrypt and the vault file is sound.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n items could not be decrypted: they were changed outside Hearth or are damaged.

{details}

{advice}</source>
        <translation>
            <numerusform>%n item could not be decrypted: it was changed outside Hearth or is damaged.

{details}

{advice}</numerusform>
            <numerusform>%n items could not be decrypted: they were changed outside Hearth or are damaged.

{details}

{advice}</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>vault.lock_screen</name>
    <message numerus="yes">
        <source>Use at least %n characters.</source>
        <translation>
            <numerusform>Use at least %n character.</numerusform>
            <numerusform>Use at least %n characters.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Choose a passphrase: at least %n characters</source>
        <translation>
            <numerusform>Choose a passphrase: at least %n character</numerusform>
            <numerusform>Choose a passphrase: at least %n characters</numerusform>
        </translation>
    </message>
</context>
</TS>
