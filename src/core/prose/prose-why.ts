/** Reasons a request is not read; tests and reports quote them. */
export const WHY = {
  noPackage: 'names no package: which dependency, and to which version?',
  noVersion: 'names no version to go to',
  several: 'names several dependencies and no version',
  versionOnly: 'names a version but no dependency',
  image: 'a container image tag: no recipe edits image references',
  digest: 'a digest or pin update: no recipe edits digests',
  group: 'a grouped update whose body lists no package with versions',
  replace: 'a replacement needs the old and the new text in backticks or quotes, or two URLs',
  rename: 'a rename needs two identifiers',
  migrate: 'a migration needs two import paths (such as javax.persistence to jakarta.persistence)',
  remove: 'names no dependency to remove',
  bound: 'names a dependency but no version bound',
} as const;
