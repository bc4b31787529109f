/**
 * @module demo/terminal
 * What the demo shows while it runs. On a terminal: a two-line footer (a
 * progress bar, and the context's tokens against the window) redrawn in
 * place, with each compaction printed above it as it happens. When stdout is
 * not a terminal (CI, a pipe): plain lines, a progress line every tenth of
 * the way and one line per compaction. Plain ANSI; `NO_COLOR` is honoured.
 */

export interface Progress {
  turn: number;
  turns: number;
  contextTokens: number;
  window: number;
  rawTokens: number;
  compactions: number;
}

const useColor = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;

function paint(code: string, text: string): string {
  return useColor ? `\x1b[${code}m${text}\x1b[0m` : text;
}

export const style = {
  bold: (text: string) => paint("1", text),
  dim: (text: string) => paint("2", text),
  green: (text: string) => paint("32", text),
  yellow: (text: string) => paint("33", text),
  red: (text: string) => paint("31", text),
  cyan: (text: string) => paint("36", text),
  magenta: (text: string) => paint("35", text),
};

export function formatNumber(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function bar(fraction: number, width: number): string {
  const clamped = Math.max(0, Math.min(1, fraction));
  const full = Math.round(clamped * width);
  return `${"█".repeat(full)}${"░".repeat(width - full)}`;
}

function contextColor(fraction: number): (text: string) => string {
  if (fraction > 1) return style.red;
  if (fraction > 0.8) return style.yellow;
  return style.green;
}

export class LiveView {
  readonly #tty = process.stdout.isTTY === true;
  #footer = 0;
  #lastPlainStep = -1;

  #write(text: string): void {
    process.stdout.write(text);
  }

  #clearFooter(): void {
    if (!this.#tty || this.#footer === 0) return;
    // Up to the first footer line, clearing each.
    this.#write(`\r\x1b[2K${"\x1b[1A\x1b[2K".repeat(this.#footer - 1)}`);
    this.#footer = 0;
  }

  #footerLines(p: Progress): string[] {
    const done = p.turns === 0 ? 1 : p.turn / p.turns;
    const fraction = p.contextTokens / p.window;
    const color = contextColor(fraction);
    return [
      `${style.cyan(bar(done, 30))} ${String(p.turn).padStart(String(p.turns).length)}/${p.turns} turns`,
      `context ${color(`${formatNumber(p.contextTokens).padStart(7)} / ${formatNumber(p.window)} tokens`)} ${color(bar(fraction, 20))} ${style.dim(`${Math.round(fraction * 100)}% · raw transcript ${formatNumber(p.rawTokens)} · compactions ${p.compactions}`)}`,
    ];
  }

  /** Redraws the footer (terminal) or prints a progress line every tenth of the way (plain). */
  update(p: Progress): void {
    if (this.#tty) {
      this.#clearFooter();
      const lines = this.#footerLines(p);
      this.#write(lines.join("\n"));
      this.#footer = lines.length;
      return;
    }
    const step = p.turns === 0 ? 10 : Math.floor((p.turn / p.turns) * 10);
    if (step !== this.#lastPlainStep) {
      this.#lastPlainStep = step;
      console.log(
        `turn ${p.turn}/${p.turns}: context ${formatNumber(p.contextTokens)} / ${formatNumber(p.window)} tokens, raw transcript ${formatNumber(p.rawTokens)}, compactions ${p.compactions}`,
      );
    }
  }

  /** Prints a line above the footer. */
  event(line: string): void {
    this.#clearFooter();
    console.log(line);
  }

  /** Leaves the footer on screen and moves below it. */
  finish(): void {
    if (this.#tty && this.#footer > 0) this.#write("\n");
    this.#footer = 0;
  }
}

/** A table with a header row, columns padded to fit. */
export function table(rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `  ${style.dim(label.padEnd(width))}  ${value}`).join("\n");
}
