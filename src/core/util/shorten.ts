/**
 * Shorten one line of text to at most `max` characters at a word boundary, ending with `…`
 * when anything was cut. A single word longer than `max` is cut inside the word. Text that fits
 * is returned unchanged: a title or a commit subject is never an error because it is long.
 */
export function shortenAtWord(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const room = Math.max(1, max - 1);
  const cut = line.slice(0, room + 1);
  const space = cut.lastIndexOf(' ');
  const head = (space > 0 ? cut.slice(0, space) : line.slice(0, room)).replace(/[\s,;:.([{-]+$/, '');
  return `${head || line.slice(0, room)}…`;
}
