; Inno Setup script for Hearth on Windows. packaging/build.py compiles it with:
;   iscc /DAppVersion=X.Y.Z /DSourceDir=dist\hearth /Odist packaging\windows\hearth.iss
; It installs the one-folder app per user (no administrator rights needed), adds a
; Start-menu entry and an uninstaller, and never touches the user's data folder.

#ifndef AppVersion
  #define AppVersion "0.0.0"
#endif
#ifndef SourceDir
  #define SourceDir "..\..\dist\hearth"
#endif

[Setup]
AppId={{6F1E3C2A-4B7D-4E0A-9C61-2F8B5D7A3E10}
AppName=Hearth
AppVersion={#AppVersion}
AppPublisher=Hearth developers
DefaultDirName={localappdata}\Programs\Hearth
DefaultGroupName=Hearth
PrivilegesRequired=lowest
OutputBaseFilename=Hearth-{#AppVersion}-setup
Compression=lzma2/max
SolidCompression=yes
ArchitecturesInstallIn64BitMode=x64compatible
UninstallDisplayIcon={app}\hearth.exe
WizardStyle=modern
LicenseFile=..\..\LICENSES.md

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: recursesubdirs createallsubdirs ignoreversion

[Icons]
Name: "{group}\Hearth"; Filename: "{app}\hearth.exe"
Name: "{group}\Uninstall Hearth"; Filename: "{uninstallexe}"

[Run]
Filename: "{app}\hearth.exe"; Description: "Open Hearth"; Flags: nowait postinstall skipifsilent
