/** Detector recipes: how each family is fed and read (types.ts), the ONNX tier's (onnx.ts) and the judge tier's. */
export type { JudgeRecipe, JudgeReplyMode, OnnxRecipe, RecipeChunking, RecipeInput, RecipeLabels, RecipeOutput, RecipeRecognition } from "./types.ts";
export { NLI_RECIPE, ONNX_RECIPES, onnxRecipeNamed } from "./onnx.ts";
export { BESPOKE_MINICHECK_RECIPE, GRANITE_GUARDIAN_RECIPE, GRANITE_GUARDIAN_THINK_RECIPE, JUDGE_NLI_RECIPE, JUDGE_RECIPES, LYNX_RECIPE, judgeRecipeNamed, resolveJudgeRecipe } from "./judge.ts";
