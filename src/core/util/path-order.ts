/** Code-unit order, which is git's byte order for the ASCII-compatible paths we compare. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `items` in `comparePaths` order of `key`, sorted in place. Listings usually arrive sorted
 * (git stores tree entries in path order): one pass says so, where sorting tens of thousands of
 * paths costs far more.
 */
export function sortByPath<T>(items: T[], key: (item: T) => string): T[] {
  for (let i = 1; i < items.length; i++) {
    if (key(items[i - 1]) >= key(items[i])) return items.sort((a, b) => comparePaths(key(a), key(b)));
  }
  return items;
}
