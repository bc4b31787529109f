/**
 * @module tokens/coded-numbers
 * The number streams of the compact rank tables (`tokens/rank-coding`): every
 * number is coded as a symbol (one printable character: its bit length and the
 * two bits below its leading one, in a stream gzip compresses well) and its
 * remaining bits (a bit stream, base64, which gzip leaves at its entropy). All
 * fields are plain ASCII strings without quotes or backslashes, so a data module
 * embeds them as string literals. A stream of running sums codes each value
 * as its difference from the previous one, which its decoder adds up in the
 * same loop. Written by hand for the reasons `tokens/rank-coding` gives.
 */

/**
 * Numbers coded as symbols (one character each) and the bits the symbols leave out (base64).
 * Each stream has its own bits, so a stream decodes in one tight loop.
 */
export interface CodedNumbers {
  readonly symbols: string;
  readonly bits: string;
}

// A number's symbol stands for its bit length and the (up to) two bits below its leading one,
// which gzip's Huffman coding then packs by how often they occur: small numbers are much more
// frequent than large ones of the same bit length. Symbols are printable ASCII but `"` and `\`.
const MAX_CODED_BITS = 24;
const TOP_BITS = 2;
const SYMBOL_CHARACTERS = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))
  .filter((c) => c !== '"' && c !== "\\")
  .join("");
/**
 * Per character code below 128, what its symbol says of a number: `high << 5 | rest`, where
 * `high` is the number's leading one and the bits the symbol carries and `rest` the count of
 * bits still to read; -1 for a character that is no symbol.
 */
const SYMBOL_VALUES = new Int32Array(128).fill(-1);
/** Symbol index of (bit length, top bits), for the encoder. */
const SYMBOL_INDEX: number[][] = [];
{
  let next = 0;
  for (let length = 0; length <= MAX_CODED_BITS; length++) {
    const width = Math.min(TOP_BITS, Math.max(0, length - 1));
    SYMBOL_INDEX[length] = [];
    for (let top = 0; top < 1 << width; top++) {
      const high = length === 0 ? 0 : (1 << width) | top;
      SYMBOL_VALUES[SYMBOL_CHARACTERS.charCodeAt(next)] =
        (high << 5) | Math.max(0, length - 1 - width);
      (SYMBOL_INDEX[length] as number[])[top] = next++;
    }
  }
  if (next > SYMBOL_CHARACTERS.length) throw new Error("too few symbol characters");
}

export const bitLength = (value: number): number => 32 - Math.clz32(value);

/** The values of a stream of running sums (see {@link decodeRunningSums}) and their bound. */
export interface RunningSums {
  readonly values: Int32Array;
  /**
   * The greatest of 0 and the values read as unsigned 32-bit integers, so one comparison
   * bounds them on both sides: a negative value makes it 2^31 or more.
   */
  readonly unsignedMax: number;
}

// A running sum's difference is a signed number of MAX_CODED_BITS bits (two's complement, so a
// fall of x is coded 2^24 - x): rises, the common case, code as short as plain numbers, where
// zigzag coding would cost a bit more each (measured: 6.2 KiB more gzipped for o200k_base).
const DIFFERENCE_SHIFT = 32 - MAX_CODED_BITS;
const DIFFERENCE_MASK = 2 ** MAX_CODED_BITS - 1;

export class NumberWriter {
  private readonly symbols: string[] = [];
  private readonly bytes: number[] = [];
  private current = 0;
  private used = 0;
  private previous = 0;

  /**
   * With `runningSums`, each value written is coded as its difference from the previous one
   * (from 0 for the first), which must fit in a signed 24-bit integer; read the stream with
   * {@link decodeRunningSums}.
   */
  constructor(private readonly runningSums = false) {}

  write(value: number): void {
    if (this.runningSums) {
      const difference = value - this.previous;
      const limit = 2 ** (MAX_CODED_BITS - 1);
      if (!Number.isInteger(value) || difference < -limit || difference >= limit) {
        throw new RangeError(
          `cannot code ${value} after ${this.previous}: differences of -2^${MAX_CODED_BITS - 1} to 2^${MAX_CODED_BITS - 1} - 1 only`,
        );
      }
      this.previous = value;
      this.writeNumber(difference & DIFFERENCE_MASK);
    } else {
      this.writeNumber(value);
    }
  }

  private writeNumber(value: number): void {
    if (!Number.isInteger(value) || value < 0 || value >= 2 ** MAX_CODED_BITS) {
      throw new RangeError(`cannot code ${value}: integers 0 to 2^${MAX_CODED_BITS} - 1 only`);
    }
    const length = bitLength(value);
    const width = Math.min(TOP_BITS, Math.max(0, length - 1));
    const rest = Math.max(0, length - 1 - width);
    const top = (value >>> rest) & ((1 << width) - 1);
    this.symbols.push(SYMBOL_CHARACTERS.charAt(SYMBOL_INDEX[length]?.[top] ?? -1));
    for (let bit = rest - 1; bit >= 0; bit--) {
      this.current = (this.current << 1) | ((value >>> bit) & 1);
      if (++this.used === 8) {
        this.bytes.push(this.current);
        this.current = 0;
        this.used = 0;
      }
    }
  }

  finish(): CodedNumbers {
    const bytes = [...this.bytes];
    if (this.used > 0) bytes.push(this.current << (8 - this.used));
    let binary = "";
    for (let i = 0; i < bytes.length; i += 8192) {
      binary += String.fromCharCode(...bytes.slice(i, i + 8192));
    }
    return { symbols: this.symbols.join(""), bits: btoa(binary) };
  }
}

/** Every number of a stream, as it is. */
export function decodeNumbers(coded: CodedNumbers): Int32Array {
  return decodeStream(coded, false).values;
}

/** The values of a stream written by a {@link NumberWriter} of running sums. */
export function decodeRunningSums(coded: CodedNumbers): RunningSums {
  return decodeStream(coded, true);
}

/**
 * Every number of a stream, in one loop over locals (hot: ~480k numbers for o200k). Every stream
 * runs through this one loop, running sums too: in a fresh process every new hot loop starts
 * interpreted, and adding up o200k_base's 78k part-list numbers in a loop of their own cost
 * ~2.5 ms more than here (measured).
 */
function decodeStream(coded: CodedNumbers, runningSums: boolean): RunningSums {
  const { symbols } = coded;
  const binary = atob(coded.bits);
  const values = new Int32Array(symbols.length);
  let value = 0;
  // The bound starts at 0, not at -2^31, which is no small integer (V8's Smis: 31 bits) and
  // made the first, interpreted call ~0.5 ms slower (measured).
  let max = 0;
  let next = 0;
  let buffer = 0;
  let buffered = 0;
  for (let i = 0; i < symbols.length; i++) {
    const code = symbols.charCodeAt(i);
    const symbol = code < 128 ? (SYMBOL_VALUES[code] as number) : -1;
    if (symbol < 0) throw new RangeError("corrupt rank data: a bad symbol");
    const rest = symbol & 31;
    let number = symbol >> 5;
    if (rest > 0) {
      while (buffered < rest) {
        if (next >= binary.length) throw new RangeError("corrupt rank data: bits end early");
        // Only the unread low bits are kept, so the buffer stays within 31 bits (a small integer).
        buffer = ((buffer & ((1 << buffered) - 1)) << 8) | binary.charCodeAt(next++);
        buffered += 8;
      }
      buffered -= rest;
      number = (number << rest) | ((buffer >>> buffered) & ((1 << rest) - 1));
    }
    // A branch the processor always predicts (the mode is the stream's): ~0.4 ms less per table
    // than adding up every stream with masks that make plain numbers sums from 0 (measured).
    if (runningSums) {
      value = (value + ((number << DIFFERENCE_SHIFT) >> DIFFERENCE_SHIFT)) | 0;
      // One unsigned comparison, not a least and a greatest: ~0.4 ms less per table (measured).
      if (value >>> 0 > max >>> 0) max = value;
      number = value;
    }
    values[i] = number;
  }
  return { values, unsignedMax: max >>> 0 };
}
