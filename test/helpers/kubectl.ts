/** Whether kubectl is installed here: tests that render manifests with it check the rest without it. */
import { execFileSync } from "node:child_process";

export function hasKubectl(): boolean {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
