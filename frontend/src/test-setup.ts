// Unit tests read numbers the way the app does once it has the API's vocabulary: the latency
// keys, metric labels and time units come from the backend's own OpenAPI example, not from a
// table kept here.
import openapi from "../openapi.json";
import type { VocabularyRead } from "./api/types";
import { configureVocabulary } from "./lib/vocabulary";

configureVocabulary(openapi.components.schemas.VocabularyRead.examples[0] as VocabularyRead);
