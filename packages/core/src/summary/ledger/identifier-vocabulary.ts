/**
 * @module summary/ledger/identifier-vocabulary
 * The word lists `summary/ledger/identifiers` decides with: file extensions and
 * extensionless file names, dotfiles, code receivers (`self.json` is no file),
 * top-level directories, library names spelled like files, top-level domains
 * for bare host names, ticket prefixes that are standards (`UTF-8`), and
 * device paths. Data only: each list says why it holds what it holds.
 */

/**
 * Extensions that make a bare name (`package.json`) a file. Left out on
 * purpose because they are common attribute names in code: `map`, `key`,
 * `env`, `db`, `cmd`, `sum`, `mod` and single letters other than `c`/`h`.
 */
export const FILE_EXTENSIONS = new Set(
  (
    "ts tsx mts cts js jsx mjs cjs json jsonc json5 jsonl ndjson md mdx markdown txt rst adoc tex bib " +
    "py pyi pyc pyx ipynb rb erb rake gemspec go rs java kt kts scala groovy gradle clj cljs edn c h cc " +
    "cpp cxx hpp hh hxx cs csproj sln vb swift php pl lua ex exs eex heex leex erl hrl hs lhs ml mli elm " +
    "dart zig nim pony sol jl sh zsh fish ps1 psm1 bat yml yaml toml ini cfg conf properties lock lockb " +
    "xml xsd xsl html htm xhtml css scss sass less styl vue svelte astro sql graphql gql proto prisma tf " +
    "tfvars hcl nix bzl bazel cmake mk dockerfile containerfile j2 jinja jinja2 tpl hbs ejs pug njk twig " +
    "haml csv tsv parquet arrow avro log out err diff patch rej orig bak tmp swp snap pdf png jpg jpeg gif " +
    "svg webp ico bmp tiff mp3 mp4 wav webm mov zip tar gz tgz bz2 xz zst 7z rar jar war whl egg so " +
    "dylib dll exe bin wasm wat sqlite sqlite3 pem crt cer csr der p12 pfx pub plist traj service " +
    "desktop vim el"
  ).split(" "),
);

/** Extensionless names that are files wherever they appear. */
export const BARE_FILE_NAMES = new Set([
  "Makefile",
  "GNUmakefile",
  "Dockerfile",
  "Containerfile",
  "Gemfile",
  "Rakefile",
  "Procfile",
  "Justfile",
  "justfile",
  "Jenkinsfile",
  "Vagrantfile",
  "Brewfile",
  "Pipfile",
  "Caddyfile",
  "CODEOWNERS",
  "go.mod",
  "go.sum",
  "go.work",
]);

export const DOTFILE =
  /^\.(?:env(?:\.[A-Za-z0-9_-]{1,40})?|git(?:ignore|attributes|modules|config)|dockerignore|npmrc|nvmrc|yarnrc|editorconfig|prettierrc|prettierignore|eslintrc|eslintignore|babelrc|bashrc|zshrc|profile|bash_profile|tool-versions|python-version|node-version|ruby-version|gitlab-ci\.yml|travis\.yml)$/;

/** Receivers that make `x.json` a property access, not a file. */
export const CODE_RECEIVERS = new Set([
  "self",
  "this",
  "cls",
  "ctx",
  "obj",
  "np",
  "pd",
  "os",
  "sys",
  "console",
  "process",
  "module",
  "exports",
  "window",
  "document",
  "math",
]);

/** Top-level directories that make a two-segment relative name (`src/lib`) a path. */
export const KNOWN_ROOTS = new Set(
  (
    "src lib libs test tests spec specs app apps packages pkg cmd internal deps priv config configs docs doc " +
    "scripts bin build dist out assets public static node_modules vendor include examples tools web server " +
    "client api migrations fixtures .github .vscode .cargo"
  ).split(" "),
);

/** Library names spelled like files. */
export const LIBRARY_NAMES = new Set(
  "node.js vue.js next.js nuxt.js react.js express.js three.js chart.js d3.js ember.js backbone.js angular.js alpine.js solid.js socket.io".split(
    " ",
  ),
);

/**
 * TLDs accepted for bare host names. Ones that collide with code (`app`,
 * `run`, `page`), words (`me`, `in`, `to`, `it`) or file extensions (`sh`,
 * `pl`, `cc`, `py`, `md`) are left out; URLs with a scheme are found anyway.
 */
export const TLDS = new Set(
  (
    "com org net edu gov mil int io ai dev co biz xyz us uk de fr jp cn ru au ca nl eu ch se es br kr " +
    "tv gg ly local internal lan arpa onion"
  ).split(" "),
);

export const TICKET_PREFIX_STOPLIST = new Set([
  "UTF",
  "ISO",
  "SHA",
  "AES",
  "RSA",
  "HTTP",
  "TLS",
  "SSL",
  "ES",
  "ECMA",
  "IPV",
  "TOP",
  "GPT",
  "COVID",
  "UTC",
  "GMT",
  "WIN",
  "ARM",
  "INT",
  "UINT",
  "FLOAT",
  "BASE",
  "MP",
  "FP",
  "BF",
  "PHP",
  "TCP",
  "UDP",
  "IPV4",
  "IPV6",
  "X86",
  "H",
  "MPEG",
  "WCAG",
]);

export const DEVICE_PATHS = new Set([
  "/dev/null",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/stdin",
  "/dev/zero",
  "/dev/tty",
]);
