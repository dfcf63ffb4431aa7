/** Detector recipes: how each family is fed and read (types.ts), the ONNX tier's (onnx.ts), and how one is chosen for a model (recognise.ts). */
export type { OnnxRecipe, RecipeChunking, RecipeInput, RecipeLabels, RecipeOutput, RecipeRecognition } from "./types.ts";
export { FACTCG_RECIPE, HHEM_RECIPE, MINICHECK_DEBERTA_RECIPE, MINICHECK_FLAN_T5_RECIPE, MINICHECK_ROBERTA_RECIPE, NLI_RECIPE, ONNX_RECIPES, RELEVANCE_RECIPE, onnxRecipeNamed } from "./onnx.ts";
export type { RecipeChoice, RecogniseOptions } from "./recognise.ts";
export { recogniseRecipe, repoNamesOf } from "./recognise.ts";
