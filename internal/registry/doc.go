// Package registry holds the two things every "kind → builder" table in
// rfstream needs: a concurrency-safe map that refuses duplicate kinds, and a
// strict JSON decoder for kind-specific parameters.
//
// Feature maps (package features) and transform groups (package transforms)
// are both rebuilt from a kind name plus JSON parameters stored in a model
// file; sharing this code keeps their error messages and rules identical.
package registry
