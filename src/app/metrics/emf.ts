import { z } from 'zod';
import { AgentError } from '../../core/errors.js';
import { isCredentialKey } from '../logger.js';

/**
 * CloudWatch Embedded Metric Format: a JSON log line whose `_aws` member tells CloudWatch which
 * of its top-level members are metrics and which are dimensions. Every other member is a
 * property: searchable in Logs Insights, not a metric. The limits below are the format's own.
 */

export const METRIC_NAMESPACE = 'draftsman';

/** The units CloudWatch accepts. */
export const EMF_UNITS = [
  'Seconds',
  'Microseconds',
  'Milliseconds',
  'Bytes',
  'Kilobytes',
  'Megabytes',
  'Gigabytes',
  'Terabytes',
  'Bits',
  'Kilobits',
  'Megabits',
  'Gigabits',
  'Terabits',
  'Percent',
  'Count',
  'Bytes/Second',
  'Kilobytes/Second',
  'Megabytes/Second',
  'Gigabytes/Second',
  'Terabytes/Second',
  'Bits/Second',
  'Kilobits/Second',
  'Megabits/Second',
  'Gigabits/Second',
  'Terabits/Second',
  'Count/Second',
  'None',
] as const;
export type EmfUnit = (typeof EMF_UNITS)[number];

export const MAX_METRICS = 100;
export const MAX_DIMENSIONS_PER_SET = 30;
const Name = z.string().min(1).max(255);

/** The `_aws` member, as the format specifies it. */
export const EmfMetadata = z.strictObject({
  Timestamp: z.number().int().nonnegative(),
  CloudWatchMetrics: z
    .array(
      z.strictObject({
        Namespace: Name,
        Dimensions: z.array(z.array(Name).max(MAX_DIMENSIONS_PER_SET)),
        Metrics: z
          .array(z.strictObject({ Name: Name, Unit: z.enum(EMF_UNITS).optional() }))
          .min(1)
          .max(MAX_METRICS),
      }),
    )
    .length(1),
});

/** A whole EMF document: `_aws`, and every metric and dimension it names present as a member of the right type. */
export const EmfDocument = z.looseObject({ _aws: EmfMetadata }).superRefine((doc, ctx) => {
  const directive = doc._aws.CloudWatchMetrics[0];
  for (const metric of directive.Metrics) {
    const value = doc[metric.Name];
    if (typeof value !== 'number' || !Number.isFinite(value)) ctx.addIssue({ code: 'custom', path: [metric.Name], message: 'a metric needs a finite number' });
  }
  for (const name of new Set(directive.Dimensions.flat())) {
    const value = doc[name];
    if (typeof value !== 'string' || value.length === 0 || value.length > 1024)
      ctx.addIssue({ code: 'custom', path: [name], message: 'a dimension needs a string of 1-1024 characters' });
  }
});
export type EmfDocument = z.infer<typeof EmfDocument>;

export type MetricReason = 'METRIC_INVALID';
export class MetricError extends AgentError<MetricReason> {}

export interface MetricSpec {
  timestamp: number;
  /** Dimension values; keep them few and of low cardinality (never a run id). */
  dimensions: Record<string, string>;
  /** Default: one set with every dimension. */
  dimensionSets?: string[][];
  metrics: { name: string; unit: EmfUnit; value: number }[];
  /** Searchable fields that are not metrics (run id, attempt, state). */
  properties?: Record<string, unknown>;
}

/**
 * Build one EMF document in namespace `draftsman`. Refuses what CloudWatch would reject or the
 * logger would blank out (a name under a credential key is replaced by `[REDACTED]`), and names
 * used twice (a property cannot shadow a metric or dimension).
 */
export function buildEmf(spec: MetricSpec): EmfDocument {
  const names = [...spec.metrics.map((m) => m.name), ...Object.keys(spec.dimensions), ...Object.keys(spec.properties ?? {})];
  const reserved = new Set(['_aws', 'level', 'time', 'msg']);
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw new MetricError('METRIC_INVALID', `the name ${name} is used twice`, { name });
    if (reserved.has(name) || isCredentialKey(name)) throw new MetricError('METRIC_INVALID', `the name ${name} is reserved`, { name });
    seen.add(name);
  }
  const document = {
    _aws: {
      Timestamp: spec.timestamp,
      CloudWatchMetrics: [
        {
          Namespace: METRIC_NAMESPACE,
          Dimensions: spec.dimensionSets ?? [Object.keys(spec.dimensions)],
          Metrics: spec.metrics.map((m) => ({ Name: m.name, Unit: m.unit })),
        },
      ],
    },
    ...spec.properties,
    ...spec.dimensions,
    ...Object.fromEntries(spec.metrics.map((m) => [m.name, m.value])),
  };
  for (const set of document._aws.CloudWatchMetrics[0].Dimensions) {
    for (const name of set)
      if (!(name in spec.dimensions)) throw new MetricError('METRIC_INVALID', `the dimension set names ${name}, which has no value`, { name });
  }
  const checked = EmfDocument.safeParse(document);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new MetricError('METRIC_INVALID', `not a valid EMF document at ${issue.path.join('.')}: ${issue.message}`, { path: issue.path.join('.') });
  }
  return checked.data;
}
