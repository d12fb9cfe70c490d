import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { applyRecipeToFile } from '../../../src/core/engines/recipe/apply-recipe-to-file.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const migrate = (from: string, to: string, path: string, text: string) =>
  applyRecipeToFile(RecipeStep.parse({ recipe: 'migrate-import', from, to }), { path, text }, { syntax });
const lines = (...l: string[]) => l.join('\n');

describe('Java imports land in the group and order the file uses', () => {
  it('Spring layout (java, javax, others, org.springframework, static): jakarta joins the others group and the javax group goes', () => {
    const before = lines(
      'package org.springframework.web.servlet;',
      '',
      'import java.io.IOException;',
      'import java.util.List;',
      '',
      'import javax.servlet.ServletException;',
      'import javax.servlet.http.HttpServletRequest;',
      '',
      'import org.apache.commons.logging.Log;',
      'import reactor.core.publisher.Mono;',
      '',
      'import org.springframework.http.HttpStatus;',
      'import org.springframework.util.Assert;',
      '',
      'import static org.springframework.web.servlet.RequestPredicates.all;',
      '',
      'public class DispatcherServlet {',
      '  void service(javax.servlet.http.HttpServletRequest request) throws ServletException, IOException {}',
      '}',
      '',
    );
    const result = migrate('javax.servlet', 'jakarta.servlet', 'src/main/java/org/springframework/web/servlet/DispatcherServlet.java', before);
    expect(result?.text).toBe(
      lines(
        'package org.springframework.web.servlet;',
        '',
        'import java.io.IOException;',
        'import java.util.List;',
        '',
        'import jakarta.servlet.ServletException;',
        'import jakarta.servlet.http.HttpServletRequest;',
        'import org.apache.commons.logging.Log;',
        'import reactor.core.publisher.Mono;',
        '',
        'import org.springframework.http.HttpStatus;',
        'import org.springframework.util.Assert;',
        '',
        'import static org.springframework.web.servlet.RequestPredicates.all;',
        '',
        'public class DispatcherServlet {',
        '  void service(jakarta.servlet.http.HttpServletRequest request) throws ServletException, IOException {}',
        '}',
        '',
      ),
    );
    // The import move and the qualified name in code are separate edits; untouched lines are not reported.
    expect(result?.edits.map((e) => e.line)).toEqual([6, 18]);
  });

  it('one ASCII-sorted group (google-java-format): the import moves to its sorted place, with its comment', () => {
    const before = lines(
      'package com.example.app;',
      '',
      'import com.google.common.collect.ImmutableList;',
      'import java.util.List;',
      '// Injected by the container, never constructed here.',
      'import javax.inject.Inject;',
      'import org.junit.jupiter.api.Test;',
      '',
      'class AppTest {}',
      '',
    );
    expect(migrate('javax.inject', 'jakarta.inject', 'src/test/java/com/example/app/AppTest.java', before)?.text).toBe(
      lines(
        'package com.example.app;',
        '',
        'import com.google.common.collect.ImmutableList;',
        '// Injected by the container, never constructed here.',
        'import jakarta.inject.Inject;',
        'import java.util.List;',
        'import org.junit.jupiter.api.Test;',
        '',
        'class AppTest {}',
        '',
      ),
    );
  });

  it('an unsorted block keeps the import where it stood', () => {
    const before = lines('import org.slf4j.Logger;', 'import javax.annotation.PostConstruct;', 'import java.util.Map;', '', 'class A {}', '');
    expect(migrate('javax.annotation', 'jakarta.annotation', 'A.java', before)?.text).toBe(
      lines('import org.slf4j.Logger;', 'import jakarta.annotation.PostConstruct;', 'import java.util.Map;', '', 'class A {}', ''),
    );
  });

  it('two imports that become identical are collapsed; a same-named import of another class is kept', () => {
    const before = lines(
      'import jakarta.annotation.Nullable;',
      'import java.util.List;',
      'import javax.annotation.Nullable;',
      'import javax.annotation.PreDestroy;',
      '',
      'class A {}',
      '',
    );
    expect(migrate('javax.annotation', 'jakarta.annotation', 'A.java', before)?.text).toBe(
      lines('import jakarta.annotation.Nullable;', 'import jakarta.annotation.PreDestroy;', 'import java.util.List;', '', 'class A {}', ''),
    );
  });

  it('keeps CRLF on moved lines, and a byte order mark where it was', () => {
    const before = '\uFEFFimport java.util.List;\r\nimport javax.inject.Inject;\r\n\r\nclass A {}\r\n';
    expect(migrate('javax.inject', 'jakarta.inject', 'A.java', before)?.text).toBe(
      '\uFEFFimport jakarta.inject.Inject;\r\nimport java.util.List;\r\n\r\nclass A {}\r\n',
    );
  });
});

describe('TypeScript imports stay sorted by module specifier within their group', () => {
  it('a monorepo file: node builtins, packages, relative imports; only the package group changes', () => {
    const before = lines(
      "import { readFile } from 'node:fs/promises';",
      "import path from 'node:path';",
      '',
      "import { Octokit } from '@octokit/rest';",
      "import { glob } from 'glob';",
      "import picomatch from 'picomatch';",
      "import { z } from 'zod';",
      '',
      "import { loadConfig } from '../config';",
      "import type { Logger } from './logger';",
      '',
      'export const run = async () => glob(await readFile(path.join(loadConfig().root), "utf8"));',
      '',
    );
    expect(migrate('glob', 'tinyglobby', 'packages/cli/src/run.ts', before)?.text).toBe(
      lines(
        "import { readFile } from 'node:fs/promises';",
        "import path from 'node:path';",
        '',
        "import { Octokit } from '@octokit/rest';",
        "import picomatch from 'picomatch';",
        "import { glob } from 'tinyglobby';",
        "import { z } from 'zod';",
        '',
        "import { loadConfig } from '../config';",
        "import type { Logger } from './logger';",
        '',
        'export const run = async () => glob(await readFile(path.join(loadConfig().root), "utf8"));',
        '',
      ),
    );
  });

  it('a multi-line import moves whole', () => {
    const before = lines(
      "import { a } from '@acme/alpha';",
      'import {',
      '  legacy,',
      '  other,',
      "} from '@acme/old';",
      "import { zeta } from '@acme/zeta';",
      '',
    );
    expect(migrate('@acme/old', '@acme/beta', 'src/x.ts', before)?.text).toBe(
      lines("import { a } from '@acme/alpha';", 'import {', '  legacy,', '  other,', "} from '@acme/beta';", "import { zeta } from '@acme/zeta';", ''),
    );
    expect(migrate('@acme/old', '@acme/zz', 'src/x.ts', before)?.text).toBe(
      lines("import { a } from '@acme/alpha';", "import { zeta } from '@acme/zeta';", 'import {', '  legacy,', '  other,', "} from '@acme/zz';", ''),
    );
  });
});

describe('Python imports follow isort sections', () => {
  it('Django: a module leaving django.utils.six sorts into the third-party section, not the project one', () => {
    const before = lines(
      '"""Serializers for articles."""',
      'import os',
      'from datetime import timedelta',
      '',
      'from django.conf import settings',
      'from django.utils.six import string_types',
      'from rest_framework import serializers',
      '',
      'from blog.models import Article',
      '',
      'from .utils import slugify',
      '',
    );
    expect(migrate('django.utils.six', 'six', 'blog/serializers.py', before)?.text).toBe(
      lines(
        '"""Serializers for articles."""',
        'import os',
        'from datetime import timedelta',
        '',
        'from django.conf import settings',
        'from rest_framework import serializers',
        'from six import string_types',
        '',
        'from blog.models import Article',
        '',
        'from .utils import slugify',
        '',
      ),
    );
  });

  it('a third-party module replaced by the standard library moves to the stdlib section (plain imports before from-imports)', () => {
    const before = lines('import os', 'import unittest', '', 'import pytest', 'from mock.mock import patch', '', 'from app.models import User', '');
    expect(migrate('mock.mock', 'unittest.mock', 'tests/test_user.py', before)?.text).toBe(
      lines('import os', 'import unittest', 'from unittest.mock import patch', '', 'import pytest', '', 'from app.models import User', ''),
    );
  });

  it('keeps a missing final newline when the last line moves', () => {
    expect(migrate('z.old', 'a', 'm.py', 'import os\n\nfrom b import y\nfrom z.old import x')?.text).toBe('import os\n\nfrom a import x\nfrom b import y');
  });
});

describe('Go imports: standard library group first, each group sorted as gofmt does', () => {
  const header = 'package controller\n\n';
  it('kubernetes-style block: a package replaced by the standard library joins the stdlib group', () => {
    const before =
      header +
      lines(
        'import (',
        '\t"context"',
        '\t"fmt"',
        '',
        '\t"github.com/pkg/errors"',
        '\tv1 "k8s.io/api/core/v1"',
        '\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"',
        '\t"k8s.io/klog/v2"',
        ')',
        '',
        'func f(ctx context.Context) error { return errors.New(fmt.Sprint(v1.PodRunning, metav1.Now())) }',
        '',
      );
    expect(migrate('github.com/pkg/errors', 'errors', 'pkg/controller/c.go', before)?.text).toBe(
      header +
        lines(
          'import (',
          '\t"context"',
          '\t"errors"',
          '\t"fmt"',
          '',
          '\tv1 "k8s.io/api/core/v1"',
          '\tmetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"',
          '\t"k8s.io/klog/v2"',
          ')',
          '',
          'func f(ctx context.Context) error { return errors.New(fmt.Sprint(v1.PodRunning, metav1.Now())) }',
          '',
        ),
    );
  });

  it('a moved module sorts within its group, trailing comment included', () => {
    const before =
      header +
      lines(
        'import (',
        '\t"fmt"',
        '',
        '\t"github.com/golang/protobuf/proto" // wire format',
        '\t"github.com/stretchr/testify/assert"',
        '\t"golang.org/x/sync/errgroup"',
        ')',
        '',
      );
    expect(migrate('github.com/golang/protobuf', 'google.golang.org/protobuf', 'c_test.go', before)?.text).toBe(
      header +
        lines(
          'import (',
          '\t"fmt"',
          '',
          '\t"github.com/stretchr/testify/assert"',
          '\t"golang.org/x/sync/errgroup"',
          '\t"google.golang.org/protobuf/proto" // wire format',
          ')',
          '',
        ),
    );
  });
});
