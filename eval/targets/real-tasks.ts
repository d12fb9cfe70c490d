/**
 * Tasks over real repositories: the subject line of a fix commit as the task text, the commit
 * before the fix as the state to select in, and the one non-test source file the fix changed as
 * the file a fix must touch. The repositories are read from local mirrors (bare git directories,
 * never copied here); a task whose mirror is absent is skipped.
 */
export interface RealTargetTask {
  id: string;
  /** owner/name; the mirror is `<mirrors>/<owner>+<name>/repo`. */
  repo: string;
  /** The parent of the fix commit. */
  commit: string;
  /** The fix commit, for reference. */
  fix: string;
  text: string;
  expected: string;
}

export const REAL_TASKS: RealTargetTask[] = [
  {
    id: 'flask-options',
    repo: 'pallets/flask',
    commit: 'd3b78fd18a8d9e224cb9ef58a23cec9b1ffc9ce9',
    fix: 'e82db2ca3a22c9614c1987392c9cfaa8c6ce99ad',
    text: 'fix provide_automatic_options override',
    expected: 'src/flask/sansio/app.py',
  },
  {
    id: 'flask-subdomain',
    repo: 'pallets/flask',
    commit: '07c7d5730a2685ef2281cc635e289685e5c3d478',
    fix: '4995a775df21a206b529403bc30d71795a994fd4',
    text: 'fix subdomain_matching=False behavior',
    expected: 'src/flask/app.py',
  },
  {
    id: 'flask-cli-runner',
    repo: 'pallets/flask',
    commit: 'ea08f155d8d37d515559534bbe0f80ef5185466c',
    fix: '54c3f87af9f6c0d6622cec2c3d9695b0229fb8fa',
    text: 'fix type hint for `cli_runner.invoke`',
    expected: 'src/flask/testing.py',
  },
  {
    id: 'chi-compress',
    repo: 'go-chi/chi',
    commit: '9b6ddcddb96aa14648702e7eaabef38e14e65157',
    fix: '38939062c5df4d3e8814aad1a488983112627ced',
    text: 'fix(middleware): reject catch-all compress wildcards "/*" and "*/*"',
    expected: 'middleware/compress.go',
  },
  {
    id: 'chi-mount',
    repo: 'go-chi/chi',
    commit: 'bc02284e9db220c644912320fe1db6bc9b4a087c',
    fix: '29164f023bf9319e74d5961a21a712653bb98c83',
    text: "fix: don't drop handlers that collide with a Mount()/Route() pattern",
    expected: 'tree.go',
  },
  {
    id: 'chi-readfrom',
    repo: 'go-chi/chi',
    commit: 'a54874f0e2f12647a19e82ee70dfa8185014100c',
    fix: '4ef87eaf2cfb27d3126d48194e1a84806acc1aed',
    text: 'middleware: fix httpFancyWriter.ReadFrom double-counting bytes with Tee',
    expected: 'middleware/wrap_writer.go',
  },
  {
    id: 'chi-route-headers',
    repo: 'go-chi/chi',
    commit: '6eb35881c0e438ffb663ddbad3a61babaa5e5d8a',
    fix: '05f1ef7bb50b8a8cb33a9dd3ba1c5b94bff0f723',
    text: 'fix(middleware): add missing return in RouteHeaders empty check',
    expected: 'middleware/route_headers.go',
  },
  {
    id: 'cobra-fish',
    repo: 'spf13/cobra',
    commit: '10d4b48a79be3d4e89e6c45cb59f4d32a3d2ae19',
    fix: '61968e893eee2f27696c2fbc8e34fa5c4afaf7c4',
    text: 'fix: quote args in fish shell completion',
    expected: 'fish_completions.go',
  },
  {
    id: 'cobra-os-args',
    repo: 'spf13/cobra',
    commit: 'f2878bab8c96afd6e36968af96343b35dbb82a82',
    fix: '746ef07158728502482cea9f880a6f4b21ef29a9',
    text: 'fix: prevent completions from mutating os.Args via append side effect',
    expected: 'completions.go',
  },
  {
    id: 'viper-lowercase',
    repo: 'spf13/viper',
    commit: '98c63ede11cfabff4cb153395c1e9d72a39041c6',
    fix: '5247643f02358b40d01385b0dbf743b659b0133f',
    text: 'Recurse into arrays when converting keys to lowercase',
    expected: 'util.go',
  },
  {
    id: 'gson-hashcode',
    repo: 'google/gson',
    commit: '961517decce0aa907c285c19d8b93d5c746ecdcb',
    fix: '5e277e42786ab6441b7dd6b1a8c34d545d132307',
    text: 'Fix JsonPrimitive.hashCode to honor the equals/hashCode contract',
    expected: 'gson/src/main/java/com/google/gson/JsonPrimitive.java',
  },
  {
    id: 'gson-duplicate-key',
    repo: 'google/gson',
    commit: '27d9ba1eeeeb156540cf5397504a4f9f256e911f',
    fix: 'f4d371d29c04066dbe7fdb31f642831f9c7f40cd',
    text: 'Fix duplicate key detection when first value is null',
    expected: 'gson/src/main/java/com/google/gson/internal/bind/MapTypeAdapterFactory.java',
  },
  {
    id: 'gson-peek-number',
    repo: 'google/gson',
    commit: 'ed2397502708ebaba53643e5c3d60e0974d7045f',
    fix: '004e7a4949e08b430e3c8996998ee5a17ff9423a',
    text: 'Fix: peekNumber rejects some numerals like 2^64 + "0"',
    expected: 'gson/src/main/java/com/google/gson/stream/JsonReader.java',
  },
  {
    id: 'lang-charrange',
    repo: 'apache/commons-lang',
    commit: '596269f16d33cd4a20223978c245a15c898c5084',
    fix: '1d6ef29ce004309e50bd91e27f0f5e80e1a57a76',
    text: 'Fix CharRange.contains for negated argument ranges',
    expected: 'src/main/java/org/apache/commons/lang3/CharRange.java',
  },
  {
    id: 'lang-fraction',
    repo: 'apache/commons-lang',
    commit: '9d1f110190081801754a8a0b447693ad2407a502',
    fix: '10f4421456b891d5a426348511383f387c99f3e1',
    text: 'Fix spurious overflow in Fraction.multiplyBy for unreduced operands',
    expected: 'src/main/java/org/apache/commons/lang3/math/Fraction.java',
  },
  {
    id: 'lang-instants',
    repo: 'apache/commons-lang',
    commit: '03636f3e9ca42122996e6cd5ac5449c0e707c80f',
    fix: '9288e2c95f39abd1ff115aeddafaa276ceafae6d',
    text: 'Fix the overflow bound direction in Instants.toMillisSince(Instant)',
    expected: 'src/main/java/org/apache/commons/lang3/time/Instants.java',
  },
  {
    id: 'zustand-persist',
    repo: 'pmndrs/zustand',
    commit: 'f44cecc72a8ec39fbd270fc29e2058806932bf2a',
    fix: '3febf8c6d4f6670f886cc6b628b01a128d2888bd',
    text: 'fix(persist): clearStorage() should invalidate concurrent async rehydration',
    expected: 'src/middleware/persist.ts',
  },
  {
    id: 'zustand-shallow',
    repo: 'pmndrs/zustand',
    commit: 'c4085a4ff0890c3254af63be3891e01c9ebcebe0',
    fix: '2cc19881fad6defaabe4a2628609ab79fce6068f',
    text: 'fix(shallow): undefined value',
    expected: 'src/vanilla/shallow.ts',
  },
  {
    id: 'gin-recovery',
    repo: 'gin-gonic/gin',
    commit: '293ad7edebb3ae30369288bd6416ca0d78474727',
    fix: '4a3eb31fb15b2a2d78b4bdbe0c31a2c564b1977a',
    text: 'fix(recovery): record recovered panics in c.Errors',
    expected: 'recovery.go',
  },
  {
    id: 'gin-client-ip',
    repo: 'gin-gonic/gin',
    commit: '915e4c90d28ec4cffc6eb146e208ab5a65eac772',
    fix: '9914178584e42458ff7d23891463a880f58c9d86',
    text: 'fix(context): ClientIP handling for multiple X-Forwarded-For header values',
    expected: 'context.go',
  },
  {
    id: 'gin-tree',
    repo: 'gin-gonic/gin',
    commit: 'fb2583442c4d9bccb75e6d26f1aa6e7c01950db6',
    fix: '472d086af2acd924cb4b9d7be0525f7d790f69bc',
    text: 'fix(tree): panic in findCaseInsensitivePathRec with RedirectFixedPath',
    expected: 'tree.go',
  },
];
