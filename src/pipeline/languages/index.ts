export { ConfigLanguageError } from './types.js';
export type { LanguageFacts, LanguageLimits, LanguageRequest } from './types.js';
export { languageFacts, type FactsBuild, type FactsRepo } from './facts.js';
export { documentsToYaml } from './documents.js';
export { languageOf, PipelineLanguages, type LanguageName } from './languages.js';
