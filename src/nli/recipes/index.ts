/** Detector recipes: how each family is fed and read (types.ts), the ONNX tier's (onnx.ts) and the judge tier's. */
export type { OnnxRecipe, RecipeChunking, RecipeInput, RecipeLabels, RecipeOutput, RecipeRecognition } from "./types.ts";
export { NLI_RECIPE, ONNX_RECIPES, onnxRecipeNamed } from "./onnx.ts";
