package resample

// Test hooks for the external test package.
var (
	PlanesFast = planesFast
	PlanAll    = planAll
)

// SetForceGeneric makes Apply skip the plane path (see forceGeneric).
func SetForceGeneric(b bool) { forceGeneric = b }
