// Package layers holds no code: its test checks that the imports between
// kubequiz's packages are the ones docs/architecture.md allows, with
// go list, so that the map stays true as the project grows.
package layers
