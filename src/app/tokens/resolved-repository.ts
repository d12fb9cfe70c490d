import { z } from 'zod';

/** A repository as the App sees it: its id, installation and default branch. */
export const ResolvedRepository = z.object({
  id: z.number().int(),
  owner: z.string(),
  name: z.string(),
  installationId: z.number().int(),
  defaultBranch: z.string(),
  cloneUrl: z.string(),
});
export type ResolvedRepository = z.infer<typeof ResolvedRepository>;
