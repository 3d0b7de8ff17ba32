import { afterAll } from "vitest";
import { removeTempDirs } from "./temp-dirs.js";

afterAll(removeTempDirs);
