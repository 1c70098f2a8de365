// Code blocks in Zulip's `codehilite` shape. We do not run a syntax highlighter
// (clients highlight); `data-code-language` carries the canonical language name
// the way Pygments names its lexers, so playgrounds keyed by it keep working.

import { escapeAll, escapeAttr } from './escape.js';

const LANGUAGE_NAMES: Record<string, string> = {};

function names(canonical: string, ...aliases: string[]): void {
  for (const alias of aliases) LANGUAGE_NAMES[alias] = canonical;
}

names('Python', 'python', 'py', 'sage', 'python3', 'py3', 'bazel', 'starlark', 'pyi');
names('Python 2.x', 'python2', 'py2');
names('Python console session', 'pycon', 'python-console');
names('Python Traceback', 'pytb', 'py3tb');
names('JavaScript', 'javascript', 'js');
names('TypeScript', 'typescript', 'ts');
names('JSX', 'jsx', 'react');
names('JSON', 'json', 'json-object');
names('Java', 'java');
names('Kotlin', 'kotlin');
names('Scala', 'scala');
names('Groovy', 'groovy');
names('C', 'c');
names('C++', 'cpp', 'c++');
names('C#', 'csharp', 'c#', 'cs');
names('F#', 'fsharp', 'f#');
names('Objective-C', 'objective-c', 'objectivec', 'obj-c', 'objc');
names('Swift', 'swift');
names('Go', 'go', 'golang');
names('Rust', 'rust', 'rs');
names('Zig', 'zig');
names('Nim', 'nimrod', 'nim');
names('D', 'd');
names('Dart', 'dart');
names('Ruby', 'ruby', 'rb', 'duby');
names('PHP', 'php', 'php3', 'php4', 'php5');
names('Perl', 'perl', 'pl');
names('Lua', 'lua');
names('Bash', 'bash', 'sh', 'ksh', 'zsh', 'shell', 'openrc');
names('Bash Session', 'console', 'shell-session');
names('PowerShell', 'powershell', 'pwsh', 'posh', 'ps1', 'psm1');
names('Batchfile', 'batch', 'bat', 'dosbatch', 'winbatch');
names('SQL', 'sql');
names('PostgreSQL SQL dialect', 'postgresql', 'postgres');
names('MySQL', 'mysql');
names('SQLite3con', 'sqlite3');
names('HTML', 'html');
names('XML', 'xml');
names('CSS', 'css');
names('SCSS', 'scss');
names('Sass', 'sass');
names('LessCss', 'less');
names('YAML', 'yaml');
names('TOML', 'toml');
names('INI', 'ini', 'cfg', 'dosini');
names('Markdown', 'markdown', 'md');
names('reStructuredText', 'restructuredtext', 'rst', 'rest');
names('TeX', 'tex', 'latex');
names('Diff', 'diff', 'udiff');
names('Haskell', 'haskell', 'hs');
names('OCaml', 'ocaml');
names('Elixir', 'elixir', 'ex', 'exs');
names('Erlang', 'erlang');
names('Clojure', 'clojure', 'clj');
names('Common Lisp', 'common-lisp', 'cl', 'lisp');
names('Scheme', 'scheme', 'scm');
names('Racket', 'racket', 'rkt');
names('Emacs Lisp', 'emacs-lisp', 'elisp', 'emacs');
names('Julia', 'julia', 'jl');
names('S', 'splus', 's', 'r');
names('Matlab', 'matlab');
names('Fortran', 'fortran', 'f90');
names('Delphi', 'delphi', 'pas', 'pascal', 'objectpascal');
names('NASM', 'nasm');
names('GAS', 'gas', 'asm');
names('VB.net', 'vb.net', 'vbnet', 'lobas', 'oobas', 'sobas');
names('Docker', 'docker', 'dockerfile');
names('Makefile', 'make', 'makefile', 'mf', 'bsdmake');
names('CMake', 'cmake');
names('Nginx configuration file', 'nginx');
names('Terraform', 'terraform', 'tf', 'hcl');
names('Nix', 'nixos', 'nix');
names('HTTP', 'http');
names('GraphQL', 'graphql');
names('Protocol Buffer', 'protobuf', 'proto');
names('CoffeeScript', 'coffeescript', 'coffee-script', 'coffee');
names('Elm', 'elm');
names('VimL', 'vim');
names('Solidity', 'solidity');
names('Verilog', 'verilog', 'v');
names('VHDL', 'vhdl');
names('Prolog', 'prolog');
names('Smalltalk', 'smalltalk', 'squeak', 'st');
names('Coq', 'coq');
names('Agda', 'agda');
names('Idris', 'idris', 'idr');
names('Lean', 'lean', 'lean3');
names('Isabelle', 'isabelle');
names('Text only', 'text');
names('Text output', 'output');
names('Handlebars', 'handlebars');
names('Django/Jinja', 'django', 'jinja');
names('Jinja', 'html+jinja', 'htmldjango');
names('Vue', 'vue');
names('Svelte', 'svelte');
names('GLSL', 'glsl');
names('CUDA', 'cuda', 'cu');
names('Crystal', 'cr', 'crystal');
names('Gleam', 'gleam');
names('Awk', 'awk', 'gawk', 'mawk', 'nawk');
names('Tcl', 'tcl');
names('Apache Conf', 'apacheconf', 'aconf', 'apache');
names('Properties', 'properties', 'jproperties');
names('CSV', 'csv');

/**
 * The name Zulip puts in `data-code-language`: the Pygments lexer name for
 * known aliases, else the language exactly as the author typed it (so realm
 * playgrounds can target custom "languages").
 */
export function canonicalCodeLanguage(lang: string): string {
  return LANGUAGE_NAMES[lang.toLowerCase()] ?? lang;
}

/** Code block HTML in Zulip's codehilite shape. `lang` may be empty. */
export function formatCodeBlock(code: string, lang: string | undefined): string {
  const lines = code.split('\n').map((line) => line.trimEnd());
  // Pygments drops leading and trailing blank lines.
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start] === '') start++;
  while (end > start && lines[end - 1] === '') end--;
  const body = lines.slice(start, end).join('\n');
  const langAttr = lang ? ` data-code-language="${escapeAttr(canonicalCodeLanguage(lang))}"` : '';
  return `<div class="codehilite"${langAttr}><pre><span></span><code>${escapeAll(body)}\n</code></pre></div>`;
}
