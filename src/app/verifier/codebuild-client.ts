import { BatchGetBuildsCommand, StartBuildCommand, type Build, type CodeBuildClient } from '@aws-sdk/client-codebuild';

/** The two CodeBuild calls the verifier makes. */
export interface BuildService {
  start(input: ConstructorParameters<typeof StartBuildCommand>[0]): Promise<{ id: string }>;
  get(id: string): Promise<Build | undefined>;
}

export function codeBuildService(client: Pick<CodeBuildClient, 'send'>): BuildService {
  return {
    async start(input) {
      const out = await client.send(new StartBuildCommand(input));
      if (!out.build?.id) throw new Error('StartBuild returned no build id');
      return { id: out.build.id };
    },
    async get(id) {
      const out = await client.send(new BatchGetBuildsCommand({ ids: [id] }));
      return out.builds?.find((b) => b.id === id);
    },
  };
}
