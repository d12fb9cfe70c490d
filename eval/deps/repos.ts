/**
 * The public repositories the dependency parity eval reads from local mirrors
 * (`<mirrors>/<owner>+<name>/repo`, a bare git directory), each at a recorded commit so the
 * numbers are reproducible; a missing mirror is skipped. Chosen so every manager the map claims
 * has many dependencies: Gradle with a version catalog and build-logic, Poetry, PEP 621 with
 * dependency-groups, setup.cfg, setup.py, requirements files, multi-module Maven, nested Go
 * modules, a pnpm workspace monorepo and a Cargo workspace.
 */
export interface DepsRepo {
  repo: string;
  commit: string;
  /** What the repository is here for. */
  covers: string;
  /** Added after the parsers were fixed against the others: a check that the fixes generalise. */
  heldOut?: boolean;
}

export const DEPS_REPOS: readonly DepsRepo[] = [
  { repo: 'square/okhttp', commit: '1682d9bac8c03dffde2969b0b74d47649d0dbb52', covers: 'gradle: libs.versions.toml, build-logic, Kotlin DSL; a pom' },
  { repo: 'android/nowinandroid', commit: 'd6abd6d3e562ae0f017888f5d62042316a49a2d6', covers: 'gradle: Android, catalog, build-logic convention plugins' },
  { repo: 'FasterXML/jackson-databind', commit: '3ff375f6cafa9696f43c5ba6f1d607cbd4ea20da', covers: 'maven: properties, plugins, external parent' },
  {
    repo: 'FasterXML/jackson-dataformats-binary',
    commit: '1925ed23cc8346c208750bc3e44facba8b476214',
    covers: 'maven: multi-module reactor with parent properties',
  },
  { repo: 'python-poetry/poetry', commit: 'f46702336862f30050d5c641d5ed6f7568ded793', covers: 'poetry groups, PEP 621, setup.py fixtures' },
  { repo: 'pydantic/pydantic', commit: '2151025aa51263f3016502b00010b78e4481eaa1', covers: 'PEP 621 with dependency-groups; a Cargo crate' },
  { repo: 'pallets/flask', commit: '2ac89889f4cc330eabd50f295dcef02828522c69', covers: 'PEP 621 dependency-groups; pip-compiled requirements' },
  { repo: 'PyCQA/flake8', commit: '48f2ca8bf7c15a2b8ff8be9463182e1e7c5e0c48', covers: 'setup.cfg install_requires; requirements files' },
  { repo: 'fabric/fabric', commit: '2e5dffbc35e30f5d34500ae7ccd419005dc6b760', covers: 'setup.py install_requires and extras_require' },
  { repo: 'Textualize/textual', commit: '1d99508b928a771b51e1a527319c6b87dcff9e05', covers: 'poetry: dependencies, extras, dev group' },
  { repo: 'boto/boto3', commit: '722e01b074c67db38ad226ac1a2dab5c36c1577c', covers: 'setup.py, setup.cfg extras, requirements files' },
  { repo: 'grpc/grpc-go', commit: '4793ad0474669eafbd5346c8a3d098fdfa542498', covers: 'gomod: nested modules, indirect, local replaces' },
  { repo: 'vitejs/vite', commit: 'a98c8d95d552c6fa98ab66fb810f5b39ad5abf49', covers: 'npm: pnpm workspace monorepo, many package.json' },
  { repo: 'tokio-rs/tokio', commit: 'ea91b33ca57ff0581b38e735cc108f831bccbdaa', covers: 'cargo: workspace members, path and target deps' },
  { repo: 'google/gson', commit: '9835b6f90192f79cdf5300c528fc6212455fb6c1', covers: 'maven: parent pom and modules', heldOut: true },
  { repo: 'Textualize/rich', commit: '42899d8a0a96b121a514516f4be9db44ff7aeaf3', covers: 'poetry: dependencies and dev group', heldOut: true },
  { repo: 'spf13/cobra', commit: 'adbc8813901bba65827259daa8e22ff94ec1f30e', covers: 'gomod: a small module', heldOut: true },
  { repo: 'axios/axios', commit: '23a25af0688d1db2c396deb09229d2271cc24f6c', covers: 'npm: one package with many dev dependencies', heldOut: true },
  { repo: 'square/retrofit', commit: '0b118105fe8436791436b8bc9c95b9aa2cfd3bdd', covers: 'gradle: catalog and samples', heldOut: true },
  { repo: 'encode/httpx', commit: 'ae1b9f66238f75ced3ced5e4485408435de10768', covers: 'PEP 621: extras and requirements files', heldOut: true },
  { repo: 'psf/requests', commit: '1f6589ec3a1ee910f9a65cc3ceac60b26677bc0e', covers: 'setup.py, setup.cfg, requirements-dev.txt', heldOut: true },
];
