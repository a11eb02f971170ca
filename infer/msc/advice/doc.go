// Package advice holds what a warning's likely causes and remedies are
// chosen from: the Facts that structure analysis finds about a model's
// posterior (a centred hierarchy, exchangeable components), the words
// those facts give (Facts.Structural), and Advice, the causes and
// remedies a warning collects. Package msc's warnings read them; package
// infer fills the facts from ir/structure.
package advice
