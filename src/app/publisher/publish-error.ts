/** The publisher's refusals are decided in core; re-exported here for the adapters and tests. */
export { PUBLISH_REASONS, PublishError, type PublishProblem, type PublishReason } from '../../core/publish/publish-error.js';
