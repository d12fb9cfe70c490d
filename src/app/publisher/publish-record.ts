/** The publish record's schema lives with the other stored run schemas. */
export { PublishRecord } from '../../core/runs/publish-record.js';
