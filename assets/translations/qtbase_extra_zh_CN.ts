<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<!-- Qt's own words that Qt's qtbase_zh_CN.qm lacks (Qt 6 changed their source text). Loaded
     after qtbase_zh_CN.qm (app/shell/language.py); packaging/translations.py build compiles it. -->
<TS version="2.1" language="zh_CN">
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>查找范围(&amp;L)：</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>文件类型(&amp;T)：</translation>
    </message>
</context>
</TS>
