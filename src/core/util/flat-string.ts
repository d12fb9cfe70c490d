/**
 * `text` as one flat string. Joining strings (`a + b`, a template) makes a rope that points at
 * both parts; V8 copies it flat the first time it is hashed or indexed (as a `Map` key, say),
 * and if that happens after the rope has outlived the young generation, the rope object stays
 * beside its flat copy for as long as the string lives. A path kept for every file of a large
 * repository pays that three ways (the rope, the copy, and the name part that stays reachable
 * through the rope): flattened as soon as it is made, while still young, the collector drops
 * the rope and the string costs its characters only. Reading one character is what flattens it.
 */
export function flatString(text: string): string {
  text.charCodeAt(0);
  return text;
}
