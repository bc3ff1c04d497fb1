// Unit tests read numbers the way the app does once it has the API's vocabulary: the time
// units come from the backend's own OpenAPI example, not from a table kept here.
import openapi from "../openapi.json";
import { configureTimeUnits } from "./lib/units";

configureTimeUnits(openapi.components.schemas.VocabularyRead.examples[0]!.time_units);
