/**
 * Imported first by the composition roots that ingest (the CLI, the worker): ES modules are
 * evaluated in import order, so this runs before any other module of the bundle allocates.
 */
import { keepYoungGenerationSize } from './young-generation.js';

keepYoungGenerationSize();
