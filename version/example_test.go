package version_test

import (
	"fmt"

	"github.com/fnapi/fnapi/version"
)

func ExampleParse() {
	v, err := version.Parse("1.10")
	if err != nil {
		panic(err)
	}
	fmt.Println(v, v.Major, v.Minor, version.MustParse("1.9").Less(v))
	// Output: 1.10 1 10 true
}
