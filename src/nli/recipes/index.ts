/** Detector recipes: how each family is fed and read (types.ts), the ONNX tier's (onnx.ts) and the judge tier's (judge.ts), and how one is chosen for a model (recognise.ts). */
export type { JudgeRecipe, JudgeReplyMode, OnnxRecipe, RecipeChunking, RecipeInput, RecipeLabels, RecipeOutput, RecipeRecognition } from "./types.ts";
export { FACTCG_RECIPE, HHEM_RECIPE, MINICHECK_DEBERTA_RECIPE, MINICHECK_FLAN_T5_RECIPE, MINICHECK_ROBERTA_RECIPE, NLI_RECIPE, ONNX_RECIPES, RELEVANCE_RECIPE, onnxRecipeNamed } from "./onnx.ts";
export { BESPOKE_MINICHECK_RECIPE, GRANITE_GUARDIAN_RECIPE, GRANITE_GUARDIAN_THINK_RECIPE, JUDGE_NLI_RECIPE, JUDGE_RECIPES, LYNX_RECIPE, judgeRecipeNamed, resolveJudgeRecipe } from "./judge.ts";
export type { RecipeChoice, RecogniseOptions } from "./recognise.ts";
export { recogniseRecipe, repoNamesOf } from "./recognise.ts";
