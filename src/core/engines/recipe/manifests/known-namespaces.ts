/**
 * Well-known Java packages and the Maven artifacts that provide them. Artifacts cannot be
 * derived from a package name in general; this short table covers the javax -> jakarta moves
 * and a few common APIs, and anything else falls back to the groupId-prefix heuristic (and
 * says so when that finds nothing). The first artifact of an entry is the one to add.
 */
export const JAVA_PACKAGE_ARTIFACTS: readonly { pkg: string; artifacts: readonly string[] }[] = [
  { pkg: 'javax.servlet', artifacts: ['javax.servlet:javax.servlet-api', 'javax.servlet:servlet-api'] },
  { pkg: 'jakarta.servlet', artifacts: ['jakarta.servlet:jakarta.servlet-api'] },
  { pkg: 'javax.persistence', artifacts: ['javax.persistence:javax.persistence-api', 'org.hibernate.javax.persistence:hibernate-jpa-2.1-api'] },
  { pkg: 'jakarta.persistence', artifacts: ['jakarta.persistence:jakarta.persistence-api'] },
  { pkg: 'javax.validation', artifacts: ['javax.validation:validation-api'] },
  { pkg: 'jakarta.validation', artifacts: ['jakarta.validation:jakarta.validation-api'] },
  { pkg: 'javax.annotation', artifacts: ['javax.annotation:javax.annotation-api', 'javax.annotation:jsr250-api'] },
  { pkg: 'jakarta.annotation', artifacts: ['jakarta.annotation:jakarta.annotation-api'] },
  { pkg: 'javax.ws.rs', artifacts: ['javax.ws.rs:javax.ws.rs-api', 'javax.ws.rs:jsr311-api'] },
  { pkg: 'jakarta.ws.rs', artifacts: ['jakarta.ws.rs:jakarta.ws.rs-api'] },
  { pkg: 'javax.xml.bind', artifacts: ['javax.xml.bind:jaxb-api'] },
  { pkg: 'jakarta.xml.bind', artifacts: ['jakarta.xml.bind:jakarta.xml.bind-api'] },
  { pkg: 'javax.inject', artifacts: ['javax.inject:javax.inject'] },
  { pkg: 'jakarta.inject', artifacts: ['jakarta.inject:jakarta.inject-api'] },
  { pkg: 'javax.transaction', artifacts: ['javax.transaction:javax.transaction-api', 'javax.transaction:jta'] },
  { pkg: 'jakarta.transaction', artifacts: ['jakarta.transaction:jakarta.transaction-api'] },
  { pkg: 'javax.mail', artifacts: ['javax.mail:javax.mail-api', 'com.sun.mail:javax.mail'] },
  { pkg: 'jakarta.mail', artifacts: ['jakarta.mail:jakarta.mail-api'] },
  { pkg: 'javax.json', artifacts: ['javax.json:javax.json-api'] },
  { pkg: 'jakarta.json', artifacts: ['jakarta.json:jakarta.json-api'] },
  { pkg: 'javax.websocket', artifacts: ['javax.websocket:javax.websocket-api'] },
  { pkg: 'jakarta.websocket', artifacts: ['jakarta.websocket:jakarta.websocket-api'] },
  { pkg: 'org.junit.jupiter', artifacts: ['org.junit.jupiter:junit-jupiter-api', 'org.junit.jupiter:junit-jupiter'] },
  { pkg: 'org.junit', artifacts: ['junit:junit'] },
];

/** Umbrella artifacts that provide every package of a namespace (the Jakarta EE platform APIs). */
export const JAVA_UMBRELLA_ARTIFACTS: readonly { prefix: string; artifacts: readonly string[] }[] = [
  {
    prefix: 'jakarta',
    artifacts: ['jakarta.platform:jakarta.jakartaee-api', 'jakarta.platform:jakarta.jakartaee-web-api', 'jakarta.platform:jakarta.jakartaee-core-api'],
  },
  { prefix: 'javax', artifacts: ['javax:javaee-api', 'javax:javaee-web-api'] },
];

/** Python import names whose distribution on PyPI has another name. */
export const PYTHON_DISTRIBUTIONS: Readonly<Record<string, string>> = {
  yaml: 'PyYAML',
  PIL: 'Pillow',
  cv2: 'opencv-python',
  sklearn: 'scikit-learn',
  bs4: 'beautifulsoup4',
  dateutil: 'python-dateutil',
  jwt: 'PyJWT',
  attr: 'attrs',
  dotenv: 'python-dotenv',
  serial: 'pyserial',
  Crypto: 'pycryptodome',
  git: 'GitPython',
  zmq: 'pyzmq',
  jose: 'python-jose',
  docx: 'python-docx',
  multipart: 'python-multipart',
  OpenSSL: 'pyOpenSSL',
  magic: 'python-magic',
  'google.protobuf': 'protobuf',
  ruamel: 'ruamel.yaml',
  psycopg2: 'psycopg2-binary',
  MySQLdb: 'mysqlclient',
  socks: 'PySocks',
  slugify: 'python-slugify',
};

/** Python standard-library top-level modules an import may move to (nothing to declare). */
export const PYTHON_STDLIB = new Set(
  'abc argparse array ast asyncio base64 bisect collections concurrent contextlib copy csv dataclasses datetime decimal email enum functools glob hashlib heapq hmac html http importlib inspect io ipaddress itertools json logging math multiprocessing operator os pathlib pickle platform queue random re secrets shutil signal socket sqlite3 ssl statistics string struct subprocess sys tempfile textwrap threading time tomllib traceback types typing unittest urllib uuid warnings weakref xml zipfile zoneinfo'.split(
    ' ',
  ),
);

/** Node.js built-in modules (also reachable as `node:<name>`): nothing to declare. */
export const NODE_BUILTINS = new Set(
  'assert async_hooks buffer child_process cluster console constants crypto dgram dns events fs http http2 https inspector module net os path perf_hooks process punycode querystring readline repl stream string_decoder timers tls tty url util v8 vm worker_threads zlib test'.split(
    ' ',
  ),
);
