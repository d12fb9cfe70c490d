/**
 * Real bug reports for the target-selection measurement (`npm run eval:targets`): each is the
 * report as filed (title and body, trimmed where long; the address says where it was read), the
 * commit before the maintainers' fix (the state a run selects in) and the files that fix changed,
 * by role: `source` files a fix must touch, `test` files it changed or added (existing or new),
 * `other` (changelogs, release notes, docs), listed but not scored. The repositories are read from
 * local mirrors (`<mirrors>/<owner>+<name>/repo`, bare git directories, never copied here); a case
 * whose mirror is absent is skipped.
 *
 * A few older cases have no report: their only text is the fix commit's subject (`text.from`
 * 'commit subject'); they are kept as a separate row. `heldOut` cases were added after the
 * selection rules were last tuned and are measured as they came: the honest figure.
 */
export type CaseLanguage = 'java' | 'kotlin' | 'go' | 'javascript' | 'typescript' | 'python' | 'rust';
export type ExpectedRole = 'source' | 'test' | 'other';

export interface ExpectedFile {
  path: string;
  role: ExpectedRole;
}

export type CaseText =
  | {
      from: 'issue';
      /** The bug report. */
      url: string;
      title: string;
      body: string;
    }
  | {
      from: 'commit subject';
      title: string;
    };

export interface BugReportCase {
  id: string;
  /** The language of the files the fix changed. */
  language: CaseLanguage;
  /** owner/name; the mirror is `<mirrors>/<owner>+<name>/repo`. */
  repo: string;
  /** The parent of the fix commit: the state to select in. */
  commit: string;
  /** The maintainers' fix; `expectedFiles` is its `git show --stat`. */
  fix: string;
  text: CaseText;
  expectedFiles: ExpectedFile[];
  heldOut?: true;
}

export const BUG_REPORTS: BugReportCase[] = [
  {
    id: 'flask-blueprint-empty-cli',
    language: 'python',
    repo: 'pallets/flask',
    commit: '14e9291380810d99152276c90ecb409b78504403',
    fix: 'f25b5000fd7b85418d8ff85b070821748ef14f19',
    text: {
      from: 'issue',
      url: 'https://github.com/pallets/flask/issues/3224',
      title: 'Blueprint CLIs should not register empty groups',
      body: 'After #1369, each blueprint has a `cli` group that will be registered with the `flask` command. This should not be registered if no commands were registered with the blueprint, otherwise empty groups show up in the CLI help output.',
    },
    expectedFiles: [
      { path: 'flask/blueprints.py', role: 'source' },
      { path: 'tests/test_cli.py', role: 'test' },
    ],
  },
  {
    id: 'flask-copy-request-context-session',
    language: 'python',
    repo: 'pallets/flask',
    commit: '7e714bd28b6e96d82b2848b48cf8ff48b517b09b',
    fix: 'e08bcf9f9700180a09f77f52604ea6de36fb83a8',
    text: {
      from: 'issue',
      url: 'https://github.com/pallets/flask/issues/2935',
      title: 'copy_current_request_context copies old session object',
      body: "### Expected Behavior\n\nWhen using `copy_current_request_context` in the middle of a request, I'm expecting it to copy the current state of `flask.request` and `flask.session` at the time it's called. \n\n### Actual Behavior\n\nThe current state of `flask.request` is copied, but `flask.session` is from before the current request and doesn't contain changes made during the current request, before `copy_current_request_context` was called. To me this seems like unexpected behaviour. If it's not I'd like to understand a bit more about why, and also to find out whether there's any workaround or alternative approach I can take. \n\n### Example\n\nHere's a fully functional example you can save and run. It adds a test value to `flask.request` and `flask.session` during the request, then uses `copy_current_request_context` to decorate a method that will retrieve those same values in another thread. Two requests are made; on the first request the copied context can find the new value added to `flask.request` but cannot find the value added to `flask.session`. On the second request, the copied context can find the value added to `flask.request`, and now finds the value that was previously added to `flask.session` in the first request.",
    },
    expectedFiles: [
      { path: 'CHANGES.rst', role: 'other' },
      { path: 'flask/ctx.py', role: 'source' },
      { path: 'tests/test_reqctx.py', role: 'test' },
    ],
    heldOut: true,
  },
  {
    id: 'requests-jsondecodeerror-pickle',
    language: 'python',
    repo: 'psf/requests',
    commit: '96b22fa18c00831656ee4b286bf1c9062459b00a',
    fix: '3ff3ff21dd45957c9e143cd500291959bb15f690',
    text: {
      from: 'issue',
      url: 'https://github.com/psf/requests/issues/6628',
      title: "[BUG] JSONDecodeError can't be deserialized - invalid JSON raises a BrokenProcessPool and crashes the entire process pool",
      body: 'Hi all,\n\nI\'ve stumbled upon a bug in the `requests` library, and have a proposal for a fix.\n\nIn short: I have a process pool running tasks in parallel, that are among other things doing queries to third-party APIs. One third-party returns an invalid JSON document as response in case of error.\n\nHowever, instead of just having a JSONDecodeError as the result of my job, the entire process pool crashes due to a BrokenProcessPool error with the following stack trace:\n\n```\nTraceback (most recent call last):\n  File "/usr/local/lib/python3.11/concurrent/futures/process.py", line 424, in wait_result_broken_or_wakeup\n    result_item = result_reader.recv()\n                  ^^^^^^^^^^^^^^^^^^^^\n  File "/usr/local/lib/python3.11/multiprocessing/connection.py", line 251, in recv\n    return _ForkingPickler.loads(buf.getbuffer())\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  File "/usr/local/lib/python3.11/site-packages/requests/exceptions.py", line 41, in __init__\n    CompatJSONDecodeError.__init__(self, *args)\nTypeError: JSONDecodeError.__init__() missing 2 required positional arguments: \'doc\' and \'pos\'\n```',
    },
    expectedFiles: [
      { path: 'src/requests/exceptions.py', role: 'source' },
      { path: 'tests/test_requests.py', role: 'test' },
    ],
  },
  {
    id: 'requests-chunked-host-header',
    language: 'python',
    repo: 'psf/requests',
    commit: 'aae78010e987a414c176bddbf474cd554505219c',
    fix: '6fbfca90b6029c22da90902e950edd9f6d37a838',
    text: {
      from: 'issue',
      url: 'https://github.com/psf/requests/issues/5274',
      title: 'Two Host header are being sent when doing chunk transfer with Session',
      body: "Two Host header are being sent when doing chunk transfer with Session\n---------------\n>>> import requests\n>>> requests.__version__\n'2.22.0'\n```\nimport requests\nimport time\nfrom requests.packages import urllib3\n\n#Disable https insecure warnings for verify=False\nurllib3.disable_warnings()\n\nwith open('1.ts','rb') as fh:\n    file_data = fh.read()\n\ndef chunk_trans():\n    for i in range(0, 3):\n        time.sleep(0.1)\n        yield file_data\n\nreq = requests.Request('POST', 'http://192.168.123.151/1.ts', data=chunk_trans(), headers={'Host':'a.b.c.d'})\nprep = req.prepare()\ns = requests.Session()\ns.send(prep, timeout=2, verify=False, allow_redirects=False)\n\n```\n\nActual Output: Two host headers are seen on server side.\n```\nHost: 192.168.123.151\nHost: a.b.c.d\nTransfer-Encoding: chunked\n```\n-------------\n\nonly \"a.b.c.d\" host header should come.",
    },
    expectedFiles: [
      { path: 'AUTHORS.rst', role: 'other' },
      { path: 'requests/adapters.py', role: 'source' },
      { path: 'tests/test_lowlevel.py', role: 'test' },
    ],
  },
  {
    id: 'rich-prompt-markup',
    language: 'python',
    repo: 'Textualize/rich',
    commit: '4d6d631a3d2deddf8405522d4b8c976a6d35726c',
    fix: '95fe8ff59249d9ac0534a82af7c746826a5999f4',
    text: {
      from: 'issue',
      url: 'https://github.com/Textualize/rich/issues/3881',
      title: '[BUG] PromptBase.on_validate_error should explicitly enable markup',
      body: "**Describe the bug**\n\nI create a console with `Console(markup=False)` and then pass it to `Confirm.ask(..., console=console)`.  If the user doesn't pick a valid choice, they get an error that says `[prompt.invalid]Please enter Y or N`.\n\nI think `PromptBase.on_validate_error()` should explicitly pass `markup=true` to `self.console.print(error)`.\n\n**Platform**\n\nEvery platform, it's a logic bug.  (I'm on Ubuntu 25.10 with gnome-terminal, which doesn't matter.)",
    },
    expectedFiles: [
      { path: 'rich/prompt.py', role: 'source' },
      { path: 'tests/test_prompt.py', role: 'test' },
    ],
  },
  {
    id: 'textual-input-cursor-value',
    language: 'python',
    repo: 'Textualize/textual',
    commit: 'e9be1898ca185de61c8b29569bb307a2a1e22166',
    fix: 'b148ab2aa9012c60632a6e0aaf2db5465b7a9b34',
    text: {
      from: 'issue',
      url: 'https://github.com/Textualize/textual/issues/5811',
      title: "Changing `Input` value doesn't update cursor position",
      body: 'Changing the `Input` value doesn\'t update the cursor position, which can result in an \'invalid\' cursor position when the new value is shorter.\n\nHere\'s a quick example to demonstrate:\n\n```python\nfrom textual.app import App, ComposeResult\nfrom textual.geometry import clamp\nfrom textual.widgets import Button, Input, Label\n\n\nclass ExampleApp(App):\n    def compose(self) -> ComposeResult:\n        yield Label("[b]Enter a number between 1-10:[/]")\n        yield Input(\n            "999999999999999999999",\n            type="integer",\n            select_on_focus=False,\n        )\n\n        yield Label("[dim]The input value will be clamped after being submitted.[/]")\n        yield Label("[dim]Notice that the cursor seems to disappear.[/]")\n\n        yield Button("Check cursor position", variant="warning")\n\n    def on_input_submitted(self, event: Input.Submitted) -> None:\n        clamped_value = clamp(int(event.value), 1, 10)\n        event.input.value = str(clamped_value)\n\n    def on_button_pressed(self) -> None:\n        cursor_position = self.query_one(Input).cursor_position\n        severity = "error" if cursor_position > 2 else "information"\n        self.notify(\n            str(cursor_position),\n            title="Cursor position",\n            severity=severity,\n        )\n\n\nif __name__ == "__main__":\n    app = ExampleApp()\n    app.run()\n```',
    },
    expectedFiles: [
      { path: 'CHANGELOG.md', role: 'other' },
      { path: 'src/textual/widgets/_input.py', role: 'source' },
      { path: 'tests/input/test_input_properties.py', role: 'test' },
    ],
    heldOut: true,
  },
  {
    id: 'chi-request-pattern',
    language: 'go',
    repo: 'go-chi/chi',
    commit: 'f975af0cb10cbefaccf0422385420fe62722d648',
    fix: '818fdcfc4786168651768377ba647cf9dd5b3953',
    text: {
      from: 'issue',
      url: 'https://github.com/go-chi/chi/issues/1089',
      title: 'Feature: on Go 1.23+, fill `(*http.Request).Pattern` with RoutePattern data',
      body: 'Similarly to https://github.com/go-chi/chi/issues/873',
    },
    expectedFiles: [
      { path: 'mux.go', role: 'source' },
      { path: 'pattern_test.go', role: 'test' },
    ],
  },
  {
    id: 'chi-readfrom-tee',
    language: 'go',
    repo: 'go-chi/chi',
    commit: 'a54874f0e2f12647a19e82ee70dfa8185014100c',
    fix: '4ef87eaf2cfb27d3126d48194e1a84806acc1aed',
    text: {
      from: 'issue',
      url: 'https://github.com/go-chi/chi/issues/1067',
      title: 'httpFancyWriter.ReadFrom double-counts BytesWritten when Tee is set',
      body: '## Description\n\n`httpFancyWriter.ReadFrom` in `middleware/wrap_writer.go` double-counts the bytes written when a `Tee` writer is set.\n\nWhen `tee != nil`, `ReadFrom` uses `io.Copy(&f.basicWriter, r)` which routes writes through `basicWriter.Write()`. The `Write` method already increments `basicWriter.bytes` on line 112. However, after `io.Copy` returns, `ReadFrom` also adds `n` to `basicWriter.bytes` again on line 212:\n\n```go\nfunc (f *httpFancyWriter) ReadFrom(r io.Reader) (int64, error) {\n\tif f.basicWriter.tee != nil {\n\t\tn, err := io.Copy(&f.basicWriter, r)\n\t\tf.basicWriter.bytes += int(n)  // BUG: double-counts, basicWriter.Write already incremented bytes\n\t\treturn n, err\n\t}\n\t// ...non-tee path correctly counts since rf.ReadFrom bypasses basicWriter.Write\n}\n```\n\nThis causes `BytesWritten()` to return double the actual number of bytes when using `ReadFrom` with a `Tee` writer.',
    },
    expectedFiles: [
      { path: 'middleware/wrap_writer.go', role: 'source' },
      { path: 'middleware/wrap_writer_test.go', role: 'test' },
    ],
  },
  {
    id: 'gin-upload-chmod',
    language: 'go',
    repo: 'gin-gonic/gin',
    commit: 'da1e108614ecbbadfa5736b1b297b16121d23b9b',
    fix: 'd9307dbcbbe796a64d9e0ef23452da888dd7f904',
    text: {
      from: 'issue',
      url: 'https://github.com/gin-gonic/gin/issues/4622',
      title: 'SaveUploadedFile: unexpected chmod on existing directories (breaks /tmp usage)',
      body: '## Description\n\nAfter upgrading from v1.10.1 to v1.12.0, `Context.SaveUploadedFile` started to fail when saving files directly into existing system directories like `/tmp`.\n\nThe failure happens due to an attempt to call `os.Chmod` on the target directory, even if it already exists and is not owned by the process.\n\nRelevant code:\nhttps://github.com/gin-gonic/gin/blob/v1.12.0/context.go#L734\n\n## Reproduction\n\n```go\nfile, _ := c.FormFile("file")\n\n// Saving directly into /tmp\nerr := c.SaveUploadedFile(file, "/tmp/test.txt")\nif err != nil {\n  panic(err)\n}\n```\n\n## Actual behavior\n\nThe call fails with:\n\nchmod /tmp: operation not permitted\n\n## Expected behavior\n\nIf the directory already exists, especially for system directories like `/tmp`, `SaveUploadedFile` should not attempt to modify its permissions.\n\nThe previous behavior (v1.10.1) only used `os.MkdirAll`, which does not change permissions on existing directories.',
    },
    expectedFiles: [
      { path: 'context.go', role: 'source' },
      { path: 'context_test.go', role: 'test' },
    ],
  },
  {
    id: 'gin-hijack-closenotify',
    language: 'go',
    repo: 'gin-gonic/gin',
    commit: '8d0468f72897652485933b845253386f9147a8bf',
    fix: 'd75fcd4c9ab260e5225de590f1f0f8c0e0e12d11',
    text: {
      from: 'issue',
      url: 'https://github.com/gin-gonic/gin/issues/4638',
      title: 'Unsafe type assertions in Hijack() and CloseNotify() cause panic with http.TimeoutHandler',
      body: "### Description\n\n## Problem\n\nSimilar to #4460 (fixed for `Flush()` in #4479), `Hijack()` and `CloseNotify()` still use direct type assertions that panic when the underlying writer doesn't implement the interface:\n\n```go\n// panics with http.TimeoutHandler (timeoutWriter is not http.Hijacker)\nreturn w.ResponseWriter.(http.Hijacker).Hijack()\n\n// panics with http.TimeoutHandler (timeoutWriter is not http.CloseNotifier)\nreturn w.ResponseWriter.(http.CloseNotifier).CloseNotify()\n```\n\n## Expected behavior\n\nSame graceful degradation already implemented in `Flush()` — return error / nil instead of panicking.",
    },
    expectedFiles: [
      { path: 'response_writer.go', role: 'source' },
      { path: 'response_writer_test.go', role: 'test' },
    ],
  },
  {
    id: 'gin-redirect-fixed-path',
    language: 'go',
    repo: 'gin-gonic/gin',
    commit: 'fb2583442c4d9bccb75e6d26f1aa6e7c01950db6',
    fix: '472d086af2acd924cb4b9d7be0525f7d790f69bc',
    text: {
      from: 'issue',
      url: 'https://github.com/gin-gonic/gin/issues/2959',
      title: 'With RedirectFixedPath enabled, the request execution panics when a 404 is expected',
      body: '## Description\n\nWhen a request to a path doesn\'t match any registered patterns and the `RedirectFixedPath` flag is set to true, the request execution panics (invalid node type). This is the line throwing the panic: https://github.com/gin-gonic/gin/blob/v1.7.7/tree.go#L851 \n\nIf the panic is commented, everything seems to work as expected with the exception of the test `TestTreeInvalidNodeType`.\n\n## How to reproduce\n\nAdd this function to the `gin_integration_test.go` file\n\n```\nfunc TestRedirectFixedPath(t *testing.T) {\n\trouter := Default()\n\n\trouter.RedirectFixedPath = true\n\n\trouter.GET("/aa/aa", func(c *Context) { c.String(http.StatusOK, "/aa/aa") })\n\trouter.GET("/:bb/aa", func(c *Context) { c.String(http.StatusOK, "/:bb/aa") })\n\n\tts := httptest.NewServer(router)\n\tdefer ts.Close()\n\n\ttestRequest(t, ts.URL+"/aa/aa", "", "/aa/aa")\n\ttestRequest(t, ts.URL+"/bb/aa", "", "/:bb/aa")\n\n\ttestRequest(t, ts.URL+"/aa", "404 Not Found") // this request makes the router panic\n}\n```\n\n## Expectations\n\nThe router should return a 404\n\n## Actual result\n\nThe router panics and the client (curl) returns\n\n```\ncurl: (52) Empty reply from server\n```',
    },
    expectedFiles: [
      { path: 'tree.go', role: 'source' },
      { path: 'tree_test.go', role: 'test' },
    ],
  },
  {
    id: 'cobra-help-flag-disable-parsing',
    language: 'go',
    repo: 'spf13/cobra',
    commit: '8b1eba47616566fc4d258a93da48d5d8741865f0',
    fix: 'b711e8760b73c6aa1b4aa1bef3a26da5926f175d',
    text: {
      from: 'issue',
      url: 'https://github.com/spf13/cobra/issues/2060',
      title: 'Completion should not complete the --help/-h and --version/-v flags if DisableFlagParsing==true',
      body: "When a command sets `DisableFlagParsing = true` it requests the responsibility of doing all the flag parsing.\nIf there are flags for that command, Cobra may not even know about them.\nI've seen this used to provide plugins to a Cobra-based CLI.  The plugins must handle their own flags as the original CLI knows nothing about such flags.\n\nThe problem is that with #1813 the shell completion logic completes the `--help/-h` and `--version/-v` for all commands, even those that do their own flag handling (i.e., `DisableFlagParsing == true`).  I've seen this cause the `--help/-h` be completed twice for plugins: one time from cobra and one time from the plugin.\n\nI therefore feel that Cobra should not complete the `--help/-h` and `--version/-v` if `DisableFlagParsing==true`.\n\nSomewhat related to #1328 but for completion.",
    },
    expectedFiles: [
      { path: 'completions.go', role: 'source' },
      { path: 'completions_test.go', role: 'test' },
    ],
  },
  {
    id: 'cobra-dash-argument-flag',
    language: 'go',
    repo: 'spf13/cobra',
    commit: 'bf11ab6321f2831be5390fdd71ab0bb2edbd9ed5',
    fix: 'b4f979ae352828a0153281b590771ce9588d67f8',
    text: {
      from: 'issue',
      url: 'https://github.com/spf13/cobra/issues/1816',
      title: 'Completion detects non-flag argument as flag',
      body: 'We have encountered some odd behavior in the auto completion.\nIt appears that arguments with a dash as the second character are detected as flags by mistake.\n\nThe full reproducer with various test cases can be found here:\nhttps://go.dev/play/p/UxqRkMcEX2a\n\nThe minimal reproducer is the following:\n\n```go\npackage main\n\nimport "github.com/spf13/cobra"\n\nfunc main() {\n\troot := &cobra.Command{\n\t\tUse: "root",\n\t}\n\troot.SetArgs([]string{"__complete", "1-ff00:0:1", ""})\n\troot.Execute()\n}\n```\n\nwhich results in the following output:\n\n```\n[Debug] [Error] Subcommand \'root\' does not support flag \'1\'\n:0\nCompletion ended with directive: ShellCompDirectiveDefault\n```\n\nI tracked down the issue and appears that we enter this branch by mistake:\nhttps://github.com/spf13/cobra/blob/fce8d8aeb08dc6afe413cc0af67a7fbb3cffec4c/completions.go#L577-L595\n\nIn particular, it appears that the is `isFlagArg` classifies the argument as a flag byistake:\n\nhttps://github.com/spf13/cobra/blob/fce8d8aeb08dc6afe413cc0af67a7fbb3cffec4c/command.go#L629-L632',
    },
    expectedFiles: [
      { path: 'command.go', role: 'source' },
      { path: 'completions_test.go', role: 'test' },
    ],
  },
  {
    id: 'cobra-completion-os-args',
    language: 'go',
    repo: 'spf13/cobra',
    commit: 'f2878bab8c96afd6e36968af96343b35dbb82a82',
    fix: '746ef07158728502482cea9f880a6f4b21ef29a9',
    text: {
      from: 'issue',
      url: 'https://github.com/spf13/cobra/issues/2257',
      title: 'Completions modify os.Args',
      body: 'I\'m trying to workaround https://github.com/spf13/cobra/issues/1877 by inspecting `os.Args` by hand. In some cases cobra accidentally inserts `--` into `os.Args`.\n\nMinimal example:\n```go\npackage main\n\nimport (\n\t"os"\n\t"strings"\n\n\t"github.com/spf13/cobra"\n)\n\nfunc main() {\n\tcmd := &cobra.Command{\n\t\tTraverseChildren: true,\n\t\tValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {\n\t\t\tcobra.CompErrorln(strings.Join(os.Args[1:], ", "))\n\t\t\treturn nil, cobra.ShellCompDirectiveDefault\n\t\t},\n\t}\n\tif err := cmd.Execute(); err != nil {\n\t\tpanic(err)\n\t}\n}\n\n```\n\nExpected behaviour:\n```console\n$ go run . __complete x\n[Debug] [Error] __complete, x\n:0\nCompletion ended with directive: ShellCompDirectiveDefault\n```\n\nActual behaviour:\n```console\n$ go run . __complete x\n[Debug] [Error] __complete, --\n:0\nCompletion ended with directive: ShellCompDirectiveDefault\n```',
    },
    expectedFiles: [
      { path: 'completions.go', role: 'source' },
      { path: 'completions_test.go', role: 'test' },
    ],
    heldOut: true,
  },
  {
    id: 'viper-array-lowercase',
    language: 'go',
    repo: 'spf13/viper',
    commit: '98c63ede11cfabff4cb153395c1e9d72a39041c6',
    fix: '5247643f02358b40d01385b0dbf743b659b0133f',
    text: {
      from: 'issue',
      url: 'https://github.com/spf13/viper/issues/1386',
      title: 'Accessing array slices fails for non-lowercase keys',
      body: '### Viper Version\n\nmaster\n\n### Go Version\n\n1.17.9\n\n### Config Source\n\nFiles\n\n### Format\n\nYAML\n\n### Code reproducing the issue\n\n```go\ndiff --git a/viper_test.go b/viper_test.go\nindex c41a1e7..536a53d 100644\n--- a/viper_test.go\n+++ b/viper_test.go\n@@ -2517,6 +2517,7 @@ func TestKeyDelimiter(t *testing.T) {\n \n var yamlDeepNestedSlices = []byte(`TV:\n - title: "The expanse"\n+  originalNetwork: "syfy"\n   seasons:\n   - first_released: "December 14, 2015"\n     episodes:\n@@ -2547,6 +2548,7 @@ func TestSliceIndexAccess(t *testing.T) {\n        require.NoError(t, err)\n \n        assert.Equal(t, "The expanse", v.GetString("tv.0.title"))\n+       assert.Equal(t, "syfy", v.GetString("tv.0.originalNetwork"))\n        assert.Equal(t, "February 1, 2017", v.GetString("tv.0.seasons.1.first_released"))\n        assert.Equal(t, "Static", v.GetString("tv.0.seasons.1.episodes.2.title"))\n```',
    },
    expectedFiles: [
      { path: 'util.go', role: 'source' },
      { path: 'viper_test.go', role: 'test' },
    ],
  },
  {
    id: 'jackson-enum-lowercase-jsonproperty',
    language: 'java',
    repo: 'FasterXML/jackson-databind',
    commit: 'bd5d3d6eefa0d2afdc8de98dc5faf84d0891aeb3',
    fix: '45b2dac3a047d3d5cae79a969f3e9fbc9bb11860',
    text: {
      from: 'issue',
      url: 'https://github.com/FasterXML/jackson-databind/issues/4788',
      title: '`EnumFeature.WRITE_ENUMS_TO_LOWERCASE` overrides `@JsonProperty` values',
      body: '### Describe the bug\n\nWhen using `EnumFeature.WRITE_ENUMS_TO_LOWERCASE`, the `@JsonProperty` values of enum fields are ignored.\n\n### Version Information\n\n2.18.1\n\n### Reproduction\n\n```java\nclass ObjectMapperTest {\n\n  public enum Sauce {\n    @JsonProperty("Ketchup")\n    KETCHUP,\n  }\n\n  ObjectMapper objectMapper = new ObjectMapper()\n      .configure(EnumFeature.WRITE_ENUMS_TO_LOWERCASE, true);\n\n  @Test\n  void shouldUseJsonProperty() throws JsonProcessingException {\n    assertEquals("\\"Ketchup\\"", objectMapper.writeValueAsString(Sauce.KETCHUP));\n  }\n}\n```\n\nResults in:\n\n```\norg.opentest4j.AssertionFailedError: \nExpected :"Ketchup"\nActual   :"ketchup"\n```\n\n### Expected behavior\n\nShould return `@JsonProperty` defined value.',
    },
    expectedFiles: [
      { path: 'src/main/java/com/fasterxml/jackson/databind/util/EnumValues.java', role: 'source' },
      { path: 'src/test/java/com/fasterxml/jackson/databind/ser/enums/WriteEnumsToLowerCaseOverridesJsonPropertyValue4788Test.java', role: 'test' },
    ],
  },
  {
    id: 'jackson-datetimeexception-serialize',
    language: 'java',
    repo: 'FasterXML/jackson-databind',
    commit: 'a79ce09e93aac381528b03efcb9516f52b81ff22',
    fix: 'b9ada308bec127f71b49bc8f8d4d9215abc6b66a',
    text: {
      from: 'issue',
      url: 'https://github.com/FasterXML/jackson-databind/issues/4718',
      title: 'Should not fail on trying to serialize `java.time.DateTimeException`',
      body: '### Describe your Issue\n\n(note: offshoot of https://github.com/FasterXML/jackson-modules-java8/issues/319)\n\nLooks like checks to support detection of "missing Java 8 date/time ser/deser support" gives false alert on `DateTimeException`. And since it should be serializable just fine (as opposed to value types where POJO handling would be wrong), we should relax check in `BeanUtil` to not block it.\n\nBut instead of allow-listing one name, I think we should just skip all `Throwable` types.',
    },
    expectedFiles: [
      { path: 'release-notes/VERSION-2.x', role: 'other' },
      { path: 'src/main/java/com/fasterxml/jackson/databind/util/BeanUtil.java', role: 'source' },
      { path: 'src/test/java/com/fasterxml/jackson/databind/interop/DateJava8FallbacksTest.java', role: 'test' },
    ],
  },
  {
    id: 'jackson-objectnode-null-key',
    language: 'java',
    repo: 'FasterXML/jackson-databind',
    commit: 'c2aee19643a5128e6554928c45ec35a70f2e3a02',
    fix: 'd7adffa7bd9f1882ec3db3c431f74d92502049ab',
    text: {
      from: 'issue',
      url: 'https://github.com/FasterXML/jackson-databind/issues/4997',
      title: '`ObjectNode` put methods should do null check for key',
      body: 'Currently various `put()` (and related) methods of `ObjectNode` allow `null` as key -- causing potential/likely trouble if attempting to serialize such nodes. Nulls should not be allowed as keys.',
    },
    expectedFiles: [
      { path: 'release-notes/VERSION-2.x', role: 'other' },
      { path: 'src/main/java/com/fasterxml/jackson/databind/node/ObjectNode.java', role: 'source' },
      { path: 'src/test/java/com/fasterxml/jackson/databind/node/ObjectNodeTest.java', role: 'test' },
    ],
    heldOut: true,
  },
  {
    id: 'gson-primitive-hashcode',
    language: 'java',
    repo: 'google/gson',
    commit: '961517decce0aa907c285c19d8b93d5c746ecdcb',
    fix: '5e277e42786ab6441b7dd6b1a8c34d545d132307',
    text: {
      from: 'issue',
      url: 'https://github.com/google/gson/issues/992',
      title: 'JsonPrimitive with LazilyParsedNumber integers breaks contract for hashCode()',
      body: 'While most types maintain consistency between `equals()` and `hashCode()` after string serialization and parsing (`JsonElement#toString()` + `JsonParser#parse(String)`, integers do not. `equals()` returns true, but the hash codes are different.\n\n```\n  public void testEqualsIntegerAndLazilyParsedInteger() {\n    MoreAsserts.assertEqualsAndHashCode(new JsonPrimitive(42), new JsonPrimitive(new LazilyParsedNumber("42")));\n  }\n```',
    },
    expectedFiles: [
      { path: 'gson/src/main/java/com/google/gson/JsonPrimitive.java', role: 'source' },
      { path: 'gson/src/test/java/com/google/gson/JsonPrimitiveTest.java', role: 'test' },
    ],
  },
  {
    id: 'gson-number-format-location',
    language: 'java',
    repo: 'google/gson',
    commit: 'e9a0f401b6dfca67e5ed225ca0aa5e5fe99b88e2',
    fix: '6bf8bf6cbf4d4f5f72f69262be890a5a5e28259d',
    text: {
      from: 'issue',
      url: 'https://github.com/google/gson/issues/1564',
      title: 'JsonReader throws NumberFormatException which does not contain location info',
      body: "The message of exceptions thrown by `JsonReader` usually contains location information including the current path. This is really helpful to locate the error in the input JSON.\n\nExample: `java.lang.IllegalStateException: Expected an int but was BOOLEAN at line 7 column 10 path $.x.y`\n\nNow `JsonReader.nextInt(), .nextLong(), .nextDouble()` may throw exceptions that contain no such location information. The exception is thrown in the lines\n`double asDouble = Double.parseDouble(peekedString); // don't catch this NumberFormatException.`\n\nHow to provoke that specific exception:\nModel: `public class Model { int x; }`\nand then call `new GsonBuilder().create().fromJson(\"{ x: ''}\", Model.class}`\n\nThe exception message will be:  `java.lang.NumberFormatException: empty String`, containg no location information.\nThe exception itself was thrown by `Double` and `JsonReader` just passed it along.\n\nImho JsonReader should catch the exception from `Double.parseDouble` and add location information to a rethrown copy.",
    },
    expectedFiles: [
      { path: 'gson/src/main/java/com/google/gson/stream/JsonReader.java', role: 'source' },
      { path: 'gson/src/test/java/com/google/gson/stream/JsonReaderTest.java', role: 'test' },
    ],
  },
  {
    id: 'retrofit-rxjava-assembly-hooks',
    language: 'java',
    repo: 'square/retrofit',
    commit: '329a9fda122f29a40f49482d421f260bf148ee83',
    fix: '4faf9e217be8ed4cdc36af50fb15166ed8faecc5',
    text: {
      from: 'issue',
      url: 'https://github.com/square/retrofit/issues/2716',
      title: 'Facilitate trace propagation with RxJava2',
      body: "What kind of issue is this?\n - [x] Feature Request. Start by telling us what problem you’re trying to solve. Often a solution\n       already exists! Don’t send pull requests to implement new features without first getting our\n       support. Sometimes we leave features out on purpose to keep the project small.\n\nI'm trying to help get tracing working for retrofit. For example, continuing an incoming trace during an retrofit outbound request (including but not limited to SLF4J propagation).\n\nI looked at similar tech https://github.com/akaita/RxJava2Debug and assembly hooks look quite good for this. I started testing and noticed everything works nicely, except when the result type is Observable. That's because observable types are returned as-is:\n\n```java\nfinal class RxJava2CallAdapter<R> implements CallAdapter<R, Object> {\n --snip--\n    if (isCompletable) {\n      return observable.ignoreElements(); // .ignoreElements indirectly calls RxJavaPlugins.onAssembly\n    }\n    return observable; // returned with no hooks\n  }\n```\n\nI understand that a custom adapter could do this, but wondering if we could make it default to use the hook on plain observable.",
    },
    expectedFiles: [
      { path: 'retrofit-adapters/rxjava2/src/main/java/retrofit2/adapter/rxjava2/RxJava2CallAdapter.java', role: 'source' },
      { path: 'retrofit-adapters/rxjava2/src/test/java/retrofit2/adapter/rxjava2/ObservableTest.java', role: 'test' },
    ],
  },
  {
    id: 'okhttp-cache-writeto-npe',
    language: 'kotlin',
    repo: 'square/okhttp',
    commit: 'bbe4f22deca382a4842caf3a7949f9449d35e410',
    fix: '21ad1aa6aa4d5de7f5f52956f0841a5c304ab849',
    text: {
      from: 'issue',
      url: 'https://github.com/square/okhttp/issues/8962',
      title: 'NullPointerException in Cache.Entry.writeTo()',
      body: "It’s crashing on the `handshake!!` line:\n\n```\n        if (url.isHttps) {\n          sink.writeByte('\\n'.code)\n          sink.writeUtf8(handshake!!.cipherSuite.javaName).writeByte('\\n'.code)\n          writeCertList(sink, handshake.peerCertificates)\n          writeCertList(sink, handshake.localCertificates)\n          sink.writeUtf8(handshake.tlsVersion.javaName).writeByte('\\n'.code)\n        }\n```\n\nThe crash looks like this:\n\n```\njava.lang.NullPointerException\n\tat okhttp3.Cache$Entry.writeTo(Cache.kt:633)\n\tat okhttp3.Cache.put$okhttp(Cache.kt:245)\n\tat okhttp3.internal.cache.CacheInterceptor.intercept(CacheInterceptor.kt:148)\n\tat okhttp3.internal.http.RealInterceptorChain.proceed(RealInterceptorChain.kt:126)\n\tat okhttp3.internal.http.BridgeInterceptor.intercept(BridgeInterceptor.kt:85)\n\tat okhttp3.internal.http.RealInterceptorChain.proceed(RealInterceptorChain.kt:126)\n\tat okhttp3.internal.http.RetryAndFollowUpInterceptor.intercept(RetryAndFollowUpInterceptor.kt:74)\n\tat okhttp3.internal.http.RealInterceptorChain.proceed(RealInterceptorChain.kt:126)\n```\n\nI find it a bit surprising to have an HTTPS URL with no handshake at this point.",
    },
    expectedFiles: [
      { path: 'okhttp/src/commonJvmAndroid/kotlin/okhttp3/Cache.kt', role: 'source' },
      { path: 'okhttp/src/jvmTest/kotlin/okhttp3/CacheTest.kt', role: 'test' },
    ],
  },
  {
    id: 'okhttp-multiple-1xx',
    language: 'kotlin',
    repo: 'square/okhttp',
    commit: 'ce9fc58b8da2c22a3adab8055334284badbfc33e',
    fix: 'f1e6d01aea30844f0ddc7394208ec13d59d5e6f8',
    text: {
      from: 'issue',
      url: 'https://github.com/square/okhttp/issues/8568',
      title: 'incorrect treatment of multiple informational HTTP responses',
      body: 'NOTE: this is not the same as <https://github.com/square/okhttp/issues/7440>.\n\nFrom <https://github.com/greenbytes/java-http-1xx-tests>:\n\n~~~\nmvn clean install -Dtest=OkHttpClientTests\n~~~\n\nResponses that contain *multiple* 1xx messages are treated incorrectly:\n\n~~~\n[ERROR] testOkHttpClient104_100(org.greenbytes.http.test1xx.OkHttpClientTests)  Time elapsed: 0.459 s  <<< ERROR!\njava.lang.IllegalStateException: state: 3\n        at org.greenbytes.http.test1xx.OkHttpClientTests.testOkHttpClient(OkHttpClientTests.java:20)\n        at org.greenbytes.http.test1xx.OkHttpClientTests.testOkHttpClient104_100(OkHttpClientTests.java:63)\n\n[ERROR] testOkHttpClient104_2(org.greenbytes.http.test1xx.OkHttpClientTests)  Time elapsed: 0.006 s  <<< ERROR!\njava.lang.IllegalStateException: state: 3\n        at org.greenbytes.http.test1xx.OkHttpClientTests.testOkHttpClient(OkHttpClientTests.java:20)\n        at org.greenbytes.http.test1xx.OkHttpClientTests.testOkHttpClient104_2(OkHttpClientTests.java:58)\n~~~',
    },
    expectedFiles: [
      { path: 'okhttp/src/main/kotlin/okhttp3/internal/http/CallServerInterceptor.kt', role: 'source' },
      { path: 'okhttp/src/test/java/okhttp3/CallTest.kt', role: 'test' },
    ],
    heldOut: true,
  },
  {
    id: 'axios-ipv6-literal',
    language: 'javascript',
    repo: 'axios/axios',
    commit: 'd1980854fee1765cd02fa0787adf5d6e34dd9dcf',
    fix: '364993f0d8bc6e0e06f76b8a35d2d0a35cab054c',
    text: {
      from: 'issue',
      url: 'https://github.com/axios/axios/issues/5333',
      title: 'Axios attempts to resolve IPv6 addresses as hostnames',
      body: "### Describe the bug\n\nUp to v0.27.2, axios could be used to reach ipv6 endpoings with a format like the following: `http://[2001:db8::5]:6001/lists`. As of 1.0.0, axios thinks that's a hostname and attempts to use dns to resolve it. \n\n```\n  cause: Error: getaddrinfo ENOTFOUND [2001:db8::5]\n      at GetAddrInfoReqWrap.onlookup [as oncomplete] (node:dns:107:26) {\n    errno: -3008,\n    code: 'ENOTFOUND',\n    syscall: 'getaddrinfo',\n    hostname: '[2001:db8::5]'\n  }\n}\n```\n\n### To Reproduce\n\nAttempt to make a axios call to a ipv6 address using the common [IPv6]:PORT format.\n\n### Code snippet\n\n```js\nlet res = await axios.post('http://[2001:db8::5]:6001/lists', {})\n```\n\n### Expected behavior\n\nAxios should attempt to open a socket to  2001:db8::5 port 6001 and make the request. \n\n### Axios Version\n\n1.2.0\n\n### Adapter Version\n\nHTTP\n\n### Node.js Version\n\nv18.12.0",
    },
    expectedFiles: [
      { path: 'lib/adapters/http.js', role: 'source' },
      { path: 'test/unit/adapters/http.js', role: 'test' },
    ],
  },
  {
    id: 'axios-geturi-params-serializer',
    language: 'javascript',
    repo: 'axios/axios',
    commit: 'df956d18febc9100a563298dfdf0f102c3d15410',
    fix: 'eac4619fe2e0926e876cd260ee21e3690381dbb5',
    text: {
      from: 'issue',
      url: 'https://github.com/axios/axios/issues/6676',
      title: 'getUri ignores paramsSerializer if it is a callback',
      body: '### Describe the bug\n\nWhen using axios\'s getUri function with a callback provided to paramsSerializer configuration option, the callback is not respected. \n\nThere is a minimal reproducible code snippet attached to this bug report.\n\nSee full example on codesandbox:\n\nhttps://codesandbox.io/p/sandbox/l4q5g3\n\n### To Reproduce\n\nCreate an axios instance and attempt to call getUri with a CustomParamsSerializer callback provided to paramsSerializer.\n\n### Code snippet\n\n```js\nconst AXIOS = new Axios({});\n\nreturn AXIOS.getUri({\n  url: "https://www.example.com/api",\n  params: {hello: "world"},\n  paramsSerializer: () => "foo=bar"\n});\n```\n\n### Expected behavior\n\nURI should be:\n\nhttps://www.example.com/api?foo=bar\n\nURI is instead: \n\nhttps://www.example.com/api?hello=world\n\n### Axios Version\n\n1.7.7',
    },
    expectedFiles: [
      { path: 'lib/helpers/buildURL.js', role: 'source' },
      { path: 'test/specs/helpers/buildURL.spec.js', role: 'test' },
    ],
    heldOut: true,
  },
  {
    id: 'vite-lightningcss-visitor-twice',
    language: 'typescript',
    repo: 'vitejs/vite',
    commit: '15f03073c915d6ffb9a1fda447ef66b02bf5cde8',
    fix: 'de041a79b05a0be965c874592fe2c1505bcd48df',
    text: {
      from: 'issue',
      url: 'https://github.com/vitejs/vite/issues/23146',
      title: 'css: lightningcss visitor runs twice — minifyCSS re-applies css.lightningcss.visitor',
      body: "### Describe the bug\n\nWhen `css.transformer: 'lightningcss'`, a configured `css.lightningcss.visitor` runs **twice** over production CSS: once in the transform/bundle pass, and again in the minify pass.\n\n`compileLightningCSS` spreads the user's options into `bundleAsync`, applying the visitor:\n\n```js\nawait (await importLightningCSS()).bundleAsync({\n  ...config.css.lightningcss,\n  filename, projectRoot: config.root, resolver: { ... }\n})\n```\n\nThen `minifyCSS` spreads the same object into `transform`, so `visitor` (and `customAtRules`) are applied a second time to the already-transformed output:\n\n```js\nconst { code, warnings } = (await importLightningCSS()).transform({\n  ...config.css.lightningcss,\n  targets: convertTargets(config.build.cssTarget),\n  cssModules: void 0,\n  filename, code: Buffer.from(css), minify: true\n})\n```\n\nSince `build.cssMinify` defaults to lightningcss in Vite 8, this is the default path.",
    },
    expectedFiles: [
      { path: 'packages/vite/src/node/plugins/css.ts', role: 'source' },
      { path: 'playground/css-lightningcss/__tests__/css-lightningcss.spec.ts', role: 'test' },
      { path: 'playground/css-lightningcss/minify.css', role: 'test' },
      { path: 'playground/css-lightningcss/vite.config.js', role: 'test' },
    ],
  },
  {
    id: 'rich-panel-title-background',
    language: 'python',
    repo: 'Textualize/rich',
    commit: '69e1618f1f3aae6589cd6210d9d318ab0cdf91da',
    fix: '30e5ed61a6064220fe2ff40f4713463488ee6d07',
    text: {
      from: 'issue',
      url: 'https://github.com/Textualize/rich/issues/3569',
      title: '[BUG]In the latest versions rich "Title" without color',
      body: 'rich v 13.0.1  Title is painted over, see screenshot\nrich v13.9.4r Title unpainted, see screenshot\n\nOS GNU/Linux and OS Windows\n\n```python\nfrom rich.console import Console\nfrom rich.panel import Panel\nfrom rich.style import Style\nimport os\n\nconsole = Console()\nconsole.print(Panel(str(os.environ), title=\'[bold white]Title[/bold white]\', style=Style(color="white", bgcolor="blue")))\n```\n![rich](https://github.com/user-attachments/assets/9eb0fd2e-13f9-4e2a-9b09-710c7d48f7ff)\nTitle should be like on the first screen (white on blue), in the second case (updated rich) white on dark (bug?)',
    },
    expectedFiles: [
      { path: 'CHANGELOG.md', role: 'other' },
      { path: 'rich/panel.py', role: 'source' },
      { path: 'tests/test_panel.py', role: 'test' },
    ],
  },
  {
    id: 'grpc-per-rpc-credential-metadata',
    language: 'go',
    repo: 'grpc/grpc-go',
    commit: '61b71be11d78679a92cc349eb776399db2794ac6',
    fix: '58bca5aadbe2a1b6e2663e90d3dc9f5d4aba4cf2',
    text: {
      from: 'issue',
      url: 'https://github.com/grpc/grpc-go/issues/9198',
      title: 'internal/transport: validate metadata returned by per-RPC credentials',
      body: '### Summary\n\nMetadata returned by `credentials.PerRPCCredentials.GetRequestMetadata` is appended to outgoing HTTP/2 request headers after application outgoing metadata has already been validated. The credential metadata keys are lowercased, but invalid keys or invalid non-binary values are not rejected before header construction.\n\n### Why this matters\n\nApplication metadata and credential-provided metadata should follow the same validation rules before they become transport headers. Without this validation, an in-process credential implementation can inject malformed request metadata even though the same key or value would be rejected if supplied as normal outgoing metadata.\n\nThis makes metadata validation inconsistent and can result in malformed outgoing HTTP/2 header behavior from credential-provided metadata.\n\n### Trigger\n\nUse a `PerRPCCredentials` implementation that returns invalid metadata, such as:\n\n- a key containing a space\n- a non-binary metadata value containing a non-printable byte',
    },
    expectedFiles: [
      { path: 'internal/transport/http2_client.go', role: 'source' },
      { path: 'test/creds_test.go', role: 'test' },
    ],
  },
  {
    id: 'grpc-balancer-resolver-metadata',
    language: 'go',
    repo: 'grpc/grpc-go',
    commit: '8518a5284bdf6604140c1f4b9702b7d0a3e0011f',
    fix: 'fa603ec26e697cf94db719db21a38d7dde24c033',
    text: {
      from: 'issue',
      url: 'https://github.com/grpc/grpc-go/issues/9199',
      title: 'internal/transport: validate balancer and resolver-injected metadata',
      body: '### Summary\n\nOutgoing application metadata is validated before stream creation, but metadata added later by a balancer through `PickResult.Metadata` or by resolver address metadata can bypass that validation. This metadata is eventually merged into the outgoing context or appended directly by the HTTP/2 transport.\n\n### Why this matters\n\nBalancer and resolver metadata can affect the same outgoing request header path as application metadata. If these late metadata sources are not validated, grpc-go applies different validation rules depending on where metadata was injected.\n\nThis can allow invalid metadata keys or values from resolver or balancer implementations to reach HTTP/2 header construction.\n\n### Trigger\n\nInject invalid metadata through either:\n\n- balancer `PickResult.Metadata`\n- resolver/address metadata\n\n### Expected behavior\n\nBalancer and resolver-injected metadata should be validated before it can affect outgoing HTTP/2 headers.\n\n### Actual behavior\n\nInvalid metadata keys or values from these late sources can reach request header construction.',
    },
    expectedFiles: [
      { path: 'internal/transport/http2_client.go', role: 'source' },
      { path: 'stream.go', role: 'source' },
      { path: 'test/balancer_test.go', role: 'test' },
    ],
    heldOut: true,
  },
  {
    id: 'protobuf-parser-current-name',
    language: 'java',
    repo: 'FasterXML/jackson-dataformats-binary',
    commit: 'a2b521f309225a1443dfcefdb4ddad51bc288640',
    fix: '07de9d1a7a8eba9ddcf56b9b20901d5059769c05',
    text: {
      from: 'issue',
      url: 'https://github.com/FasterXML/jackson-dataformats-binary/issues/462',
      title: '`ProtobufParser.currentName()` returns wrong value at root level',
      body: '(note: problem found when diagnosing #460)\n\nLooks like `ProtobufParser` does not always update parsing/input context appropriately at root level: specifically, after last `JsonToken.END_OBJECT` it may still return last property name, instead of `null`.',
    },
    expectedFiles: [
      { path: 'protobuf/src/main/java/com/fasterxml/jackson/dataformat/protobuf/ProtobufParser.java', role: 'source' },
      { path: 'protobuf/src/test/java/com/fasterxml/jackson/dataformat/protobuf/ReadSimpleTest.java', role: 'test' },
      { path: 'protobuf/src/test/java/com/fasterxml/jackson/dataformat/protobuf/fuzz/ProtobufFuzz_65674_NPETest.java', role: 'test' },
      { path: 'release-notes/VERSION-2.x', role: 'other' },
    ],
  },
  {
    id: 'axios-error-status-missing',
    language: 'javascript',
    repo: 'axios/axios',
    commit: '7004707c4180b416341863bd86913fe4fc2f1df1',
    fix: '6700a8adac06942205f6a7a21421ecb36c4e0852',
    text: {
      from: 'issue',
      url: 'https://github.com/axios/axios/issues/6561',
      title: '`status` field missing from `AxiosError`',
      body: '#### Summary\n\nIn the [Javascript implementation of `AxiosError`](https://github.com/axios/axios/blob/v1.x/lib/core/AxiosError.js), the `status` is only attached to the `toJson`, but not in the `AxiosError` itself. However, in the [type declaration of `AxiosError`](https://github.com/axios/axios/blob/4f99675fe7eae503422f932b9407242dbc1b7d55/index.d.ts#L416), there is `status?: number` field. Because of this, I have accidentally misused it for quite a while, as it is more obvious and direct than `error.response.status`.\n\nThe PR https://github.com/axios/axios/pull/5331 seems to already fix this issue, and it was even approved. But it was not merged. Can axios team merge this, or there is something else that the PR need to resolve?',
    },
    expectedFiles: [
      { path: 'lib/core/AxiosError.js', role: 'source' },
      { path: 'test/specs/core/AxiosError.spec.js', role: 'test' },
    ],
  },
  {
    id: 'vite-module-runner-named-import-race',
    language: 'typescript',
    repo: 'vitejs/vite',
    commit: 'c0f2fc607ee97ee4499337b04826420c00654065',
    fix: 'd9b10a98db1c293ee64300bd75d568b44c8ae931',
    text: {
      from: 'issue',
      url: 'https://github.com/vitejs/vite/issues/22999',
      title: 'Module runner: plain named-import bindings are `undefined` after HMR when a shared dependency is still evaluating (race not covered by #22369)',
      body: '### Describe the bug\n\nAfter an HMR invalidation, concurrent imports through the SSR module runner can observe **`undefined` bindings for plain named imports** of a shared dependency whose evaluation is still in flight. The importing module finishes evaluation (and its `mod.promise` resolves) without awaiting the in-flight shared dependency, so code that runs right after gets:\n\n```\nTypeError: (0 , __vite_ssr_import_0__.fetchData) is not a function\n```\n\nwhere `fetchData` is a plain named export of a first-party module (a shared helper imported by several modules that re-evaluate concurrently after the invalidation).\n\nThis looks like a sibling of the race fixed by #22369 (shipped in `vite@8.0.12`, closes TanStack/router#7285). That fix is scoped to **re-export chains** — it replaced the `mod.importers`-based circular heuristics in `ModuleRunner.cachedRequest` with a callstack-driven check, so a concurrent caller no longer receives the partial exports of an in-flight `export *` chain. The failure reported here still reproduces on `vite@8.1.3` (which includes that fix), with **plain named imports** and no `export *` involved.',
    },
    expectedFiles: [
      { path: 'packages/vite/src/module-runner/runner.ts', role: 'source' },
      { path: 'packages/vite/src/node/ssr/runtime/__tests__/fixtures/hmr-evaluated-import-race/evaluated.js', role: 'test' },
      { path: 'packages/vite/src/node/ssr/runtime/__tests__/fixtures/hmr-evaluated-import-race/shared.js', role: 'test' },
      { path: 'packages/vite/src/node/ssr/runtime/__tests__/server-hmr.spec.ts', role: 'test' },
    ],
    heldOut: true,
  },
  {
    id: 'tokio-recv-many-closed',
    language: 'rust',
    repo: 'tokio-rs/tokio',
    commit: 'f320197693ee09e28f1fca0e55418081adcdfc25',
    fix: 'bf18ed452d6aae438e84ae008a01a74776abdc19',
    text: {
      from: 'issue',
      url: 'https://github.com/tokio-rs/tokio/issues/7990',
      title: '`mpsc::Chan::recv_many` panics due to faulty assertion when called with a non-empty buffer after receiver closed',
      body: '**Version**\n1.50.0 / `master` at `a8435c0`\n\n**Description**\n\nAs described in `#tokio-internals`, `tokio::mpsc::Chan::recv_many` makes incorrect assumptions about the provided buffer when exiting through the post-loop `rx_fields.rx_closed && self.inner.semaphore.is_idle()` code path.\n\n`assert!(buffer.is_empty());` asserts the incorrect precondition, it should `assert_eq!(buffer.len(), initial_length);` instead.\n\nThe following tests trigger the faulty assertion for bounded and unbounded channels:\n\n```rust\n#[should_panic]\n#[maybe_tokio_test]\nasync fn recv_many_with_non_empty_buffer_bounded_rx_closed_and_idle() {\n    let (_tx, mut rx) = mpsc::channel::<i32>(1);\n\n    let mut buffer: Vec<i32> = vec![1];\n\n    rx.close();\n\n    // Panics, incorrectly expecting an empty buffer.\n    rx.recv_many(&mut buffer, 1).await;\n}\n```',
    },
    expectedFiles: [
      { path: 'tokio/src/sync/mpsc/chan.rs', role: 'source' },
      { path: 'tokio/tests/sync_mpsc.rs', role: 'test' },
    ],
  },
  {
    id: 'flask-options',
    language: 'python',
    repo: 'pallets/flask',
    commit: 'd3b78fd18a8d9e224cb9ef58a23cec9b1ffc9ce9',
    fix: 'e82db2ca3a22c9614c1987392c9cfaa8c6ce99ad',
    text: {
      from: 'commit subject',
      title: 'fix provide_automatic_options override',
    },
    expectedFiles: [
      { path: 'CHANGES.rst', role: 'other' },
      { path: 'docs/config.rst', role: 'other' },
      { path: 'src/flask/sansio/app.py', role: 'source' },
      { path: 'tests/test_basic.py', role: 'test' },
      { path: 'tests/test_blueprints.py', role: 'test' },
      { path: 'tests/test_cli.py', role: 'test' },
      { path: 'tests/test_views.py', role: 'test' },
    ],
  },
  {
    id: 'flask-subdomain',
    language: 'python',
    repo: 'pallets/flask',
    commit: '07c7d5730a2685ef2281cc635e289685e5c3d478',
    fix: '4995a775df21a206b529403bc30d71795a994fd4',
    text: {
      from: 'commit subject',
      title: 'fix subdomain_matching=False behavior',
    },
    expectedFiles: [
      { path: 'CHANGES.rst', role: 'other' },
      { path: 'docs/config.rst', role: 'other' },
      { path: 'src/flask/app.py', role: 'source' },
      { path: 'tests/test_basic.py', role: 'test' },
      { path: 'tests/test_blueprints.py', role: 'test' },
    ],
  },
  {
    id: 'flask-cli-runner',
    language: 'python',
    repo: 'pallets/flask',
    commit: 'ea08f155d8d37d515559534bbe0f80ef5185466c',
    fix: '54c3f87af9f6c0d6622cec2c3d9695b0229fb8fa',
    text: {
      from: 'commit subject',
      title: 'fix type hint for `cli_runner.invoke`',
    },
    expectedFiles: [
      { path: 'CHANGES.rst', role: 'other' },
      { path: 'src/flask/testing.py', role: 'source' },
    ],
  },
  {
    id: 'chi-compress',
    language: 'go',
    repo: 'go-chi/chi',
    commit: '9b6ddcddb96aa14648702e7eaabef38e14e65157',
    fix: '38939062c5df4d3e8814aad1a488983112627ced',
    text: {
      from: 'commit subject',
      title: 'fix(middleware): reject catch-all compress wildcards "/*" and "*/*"',
    },
    expectedFiles: [
      { path: 'middleware/compress.go', role: 'source' },
      { path: 'middleware/compress_test.go', role: 'test' },
    ],
  },
  {
    id: 'chi-mount',
    language: 'go',
    repo: 'go-chi/chi',
    commit: 'bc02284e9db220c644912320fe1db6bc9b4a087c',
    fix: '29164f023bf9319e74d5961a21a712653bb98c83',
    text: {
      from: 'commit subject',
      title: "fix: don't drop handlers that collide with a Mount()/Route() pattern",
    },
    expectedFiles: [
      { path: 'tree.go', role: 'source' },
      { path: 'tree_test.go', role: 'test' },
    ],
  },
  {
    id: 'chi-route-headers',
    language: 'go',
    repo: 'go-chi/chi',
    commit: '6eb35881c0e438ffb663ddbad3a61babaa5e5d8a',
    fix: '05f1ef7bb50b8a8cb33a9dd3ba1c5b94bff0f723',
    text: {
      from: 'commit subject',
      title: 'fix(middleware): add missing return in RouteHeaders empty check',
    },
    expectedFiles: [
      { path: 'middleware/route_headers.go', role: 'source' },
      { path: 'middleware/route_headers_test.go', role: 'test' },
    ],
  },
  {
    id: 'cobra-fish',
    language: 'go',
    repo: 'spf13/cobra',
    commit: '10d4b48a79be3d4e89e6c45cb59f4d32a3d2ae19',
    fix: '61968e893eee2f27696c2fbc8e34fa5c4afaf7c4',
    text: {
      from: 'commit subject',
      title: 'fix: quote args in fish shell completion',
    },
    expectedFiles: [{ path: 'fish_completions.go', role: 'source' }],
  },
  {
    id: 'gson-duplicate-key',
    language: 'java',
    repo: 'google/gson',
    commit: '27d9ba1eeeeb156540cf5397504a4f9f256e911f',
    fix: 'f4d371d29c04066dbe7fdb31f642831f9c7f40cd',
    text: {
      from: 'commit subject',
      title: 'Fix duplicate key detection when first value is null',
    },
    expectedFiles: [
      { path: 'gson/src/main/java/com/google/gson/internal/bind/MapTypeAdapterFactory.java', role: 'source' },
      { path: 'gson/src/test/java/com/google/gson/functional/MapAsArrayTypeAdapterTest.java', role: 'test' },
      { path: 'gson/src/test/java/com/google/gson/functional/MapTest.java', role: 'test' },
    ],
  },
  {
    id: 'gson-peek-number',
    language: 'java',
    repo: 'google/gson',
    commit: 'ed2397502708ebaba53643e5c3d60e0974d7045f',
    fix: '004e7a4949e08b430e3c8996998ee5a17ff9423a',
    text: {
      from: 'commit subject',
      title: 'Fix: peekNumber rejects some numerals like 2^64 + "0"',
    },
    expectedFiles: [
      { path: 'gson/src/main/java/com/google/gson/stream/JsonReader.java', role: 'source' },
      { path: 'gson/src/test/java/com/google/gson/stream/JsonReaderTest.java', role: 'test' },
    ],
  },
  {
    id: 'lang-charrange',
    language: 'java',
    repo: 'apache/commons-lang',
    commit: '596269f16d33cd4a20223978c245a15c898c5084',
    fix: '1d6ef29ce004309e50bd91e27f0f5e80e1a57a76',
    text: {
      from: 'commit subject',
      title: 'Fix CharRange.contains for negated argument ranges',
    },
    expectedFiles: [
      { path: 'src/main/java/org/apache/commons/lang3/CharRange.java', role: 'source' },
      { path: 'src/test/java/org/apache/commons/lang3/CharRangeTest.java', role: 'test' },
    ],
  },
  {
    id: 'lang-fraction',
    language: 'java',
    repo: 'apache/commons-lang',
    commit: '9d1f110190081801754a8a0b447693ad2407a502',
    fix: '10f4421456b891d5a426348511383f387c99f3e1',
    text: {
      from: 'commit subject',
      title: 'Fix spurious overflow in Fraction.multiplyBy for unreduced operands',
    },
    expectedFiles: [
      { path: 'src/main/java/org/apache/commons/lang3/math/Fraction.java', role: 'source' },
      { path: 'src/test/java/org/apache/commons/lang3/math/FractionTest.java', role: 'test' },
    ],
  },
  {
    id: 'lang-instants',
    language: 'java',
    repo: 'apache/commons-lang',
    commit: '03636f3e9ca42122996e6cd5ac5449c0e707c80f',
    fix: '9288e2c95f39abd1ff115aeddafaa276ceafae6d',
    text: {
      from: 'commit subject',
      title: 'Fix the overflow bound direction in Instants.toMillisSince(Instant)',
    },
    expectedFiles: [
      { path: 'src/main/java/org/apache/commons/lang3/time/Instants.java', role: 'source' },
      { path: 'src/test/java/org/apache/commons/lang3/time/InstantsTest.java', role: 'test' },
    ],
  },
  {
    id: 'zustand-persist',
    language: 'typescript',
    repo: 'pmndrs/zustand',
    commit: 'f44cecc72a8ec39fbd270fc29e2058806932bf2a',
    fix: '3febf8c6d4f6670f886cc6b628b01a128d2888bd',
    text: {
      from: 'commit subject',
      title: 'fix(persist): clearStorage() should invalidate concurrent async rehydration',
    },
    expectedFiles: [
      { path: 'src/middleware/persist.ts', role: 'source' },
      { path: 'tests/persistAsync.test.tsx', role: 'test' },
    ],
  },
  {
    id: 'zustand-shallow',
    language: 'typescript',
    repo: 'pmndrs/zustand',
    commit: 'c4085a4ff0890c3254af63be3891e01c9ebcebe0',
    fix: '2cc19881fad6defaabe4a2628609ab79fce6068f',
    text: {
      from: 'commit subject',
      title: 'fix(shallow): undefined value',
    },
    expectedFiles: [
      { path: 'src/vanilla/shallow.ts', role: 'source' },
      { path: 'tests/vanilla/shallow.test.tsx', role: 'test' },
    ],
  },
  {
    id: 'gin-recovery',
    language: 'go',
    repo: 'gin-gonic/gin',
    commit: '293ad7edebb3ae30369288bd6416ca0d78474727',
    fix: '4a3eb31fb15b2a2d78b4bdbe0c31a2c564b1977a',
    text: {
      from: 'commit subject',
      title: 'fix(recovery): record recovered panics in c.Errors',
    },
    expectedFiles: [
      { path: 'recovery.go', role: 'source' },
      { path: 'recovery_test.go', role: 'test' },
    ],
  },
  {
    id: 'gin-client-ip',
    language: 'go',
    repo: 'gin-gonic/gin',
    commit: '915e4c90d28ec4cffc6eb146e208ab5a65eac772',
    fix: '9914178584e42458ff7d23891463a880f58c9d86',
    text: {
      from: 'commit subject',
      title: 'fix(context): ClientIP handling for multiple X-Forwarded-For header values',
    },
    expectedFiles: [
      { path: 'context.go', role: 'source' },
      { path: 'context_test.go', role: 'test' },
    ],
  },
];
