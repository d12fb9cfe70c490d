import { z } from 'zod';

/** The map's path risk: a level per rule and per matched path, as the repository map records it. */
export const RiskLevel = z.enum(['low', 'medium', 'high', 'blocked']);
export type RiskLevel = z.infer<typeof RiskLevel>;

export const RiskRule = z.object({ id: z.string(), pattern: z.string(), level: RiskLevel, reason: z.string(), source: z.enum(['default', 'policy']) });
export type RiskRule = z.infer<typeof RiskRule>;

export const RiskPath = z.object({ path: z.string(), level: RiskLevel, reason: z.string(), ruleId: z.string(), isDirectory: z.boolean() });
export type RiskPath = z.infer<typeof RiskPath>;
