/** Line starts of a text, for offset -> 1-based line/column and for snippets. Counts `\n` (a `\r\n` line ends at its `\r`). */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  get lineCount(): number {
    return this.starts.length;
  }

  /** 0-based line of an offset. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Offset where a 0-based line starts. */
  lineStart(line: number): number {
    return this.starts[line];
  }

  /** Offset where a 0-based line's content ends (before `\r\n` or `\n`). */
  lineEnd(line: number): number {
    if (line + 1 >= this.starts.length) return this.text.length;
    const next = this.starts[line + 1] - 1;
    return next > this.starts[line] && this.text[next - 1] === '\r' ? next - 1 : next;
  }

  /** Text of a 0-based line without its line ending. */
  lineText(line: number): string {
    return this.text.slice(this.starts[line], this.lineEnd(line));
  }

  /** 1-based line and column (UTF-16 code units) of an offset. */
  position(offset: number): { line: number; column: number } {
    const line = this.lineOf(offset);
    return { line: line + 1, column: offset - this.starts[line] + 1 };
  }

  /** The 1-based line, trimmed, at most 200 characters. */
  snippet(line1: number): string {
    if (line1 < 1 || line1 > this.starts.length) return '';
    return this.lineText(line1 - 1)
      .trim()
      .slice(0, 200);
  }
}
