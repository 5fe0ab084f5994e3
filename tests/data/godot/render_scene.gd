# Renders an imported scene in Godot 3 once per seed, for spritz's engine
# statistics test (tests/import/godot_scene_engine_test.cpp). Run as
#   godot3 --path PROJECT --video-driver GLES3 --fixed-fps 60 --disable-vsync \
#     -s render_scene.gd --scene=res://SCENE.tscn --frames=6,30,120 \
#     --seeds=1,2,3 --place=X,Y --out=DIR/godot_%d_%d.png
# For each seed the global random generator is seeded (Particles2D's
# RANDOM_SEED and CPUParticles2D's rolls come from it), the scene is
# instanced and moved so that its first particle node is at (X, Y) in the
# viewport, and the viewport is saved (seed, frame) after
# each of the drawn-frame counts asked for; then the scene is freed and the
# next seed starts. Every particle node emits and shows (a script would
# start them); every other canvas item is made transparent, animation
# players stop and rigid bodies stay still, so only particles are drawn.
# Each particle node's global position is printed ("particles NAME X Y").
extends SceneTree

var scene = null
var place = Vector2()
var seeds = []
var targets = []
var out_pattern = "godot_%d_%d.png"
var job = -1
var top = null
var drawn = 0

func _init():
	var scene_path = ""
	for a in OS.get_cmdline_args():
		if a.begins_with("--scene="):
			scene_path = a.substr(8)
		elif a.begins_with("--frames="):
			for f in a.substr(9).split(","):
				targets.append(int(f))
		elif a.begins_with("--seeds="):
			for s in a.substr(8).split(","):
				seeds.append(int(s))
		elif a.begins_with("--place="):
			var xy = a.substr(8).split(",")
			place = Vector2(float(xy[0]), float(xy[1]))
		elif a.begins_with("--out="):
			out_pattern = a.substr(6)
	scene = load(scene_path)
	if scene == null or targets.empty() or seeds.empty():
		printerr("render_scene.gd: cannot load ", scene_path, " or no --frames or --seeds")
		quit(2)
		return
	VisualServer.connect("frame_post_draw", self, "_drawn")
	_next()

func _next():
	if top != null:
		top.queue_free()
		top = null
	job += 1
	if job >= seeds.size():
		quit(0)
		return
	seed(seeds[job])
	drawn = 0
	top = scene.instance()
	if top is RigidBody2D:
		top.mode = RigidBody2D.MODE_STATIC
	get_root().add_child(top)
	var first = _first_particles(top)
	if first != null:
		var shift = place - first.get_global_transform().origin
		_shift(top, shift)
	_prepare(top)

# Moves a node's drawing by `shift`: a plain Node does not transform its
# children, so each of them is moved instead.
func _shift(node, shift):
	if node is CanvasLayer:
		node.offset += shift
	elif node is Node2D:
		node.position += shift
	elif node is Control:
		node.rect_position += shift
	else:
		for c in node.get_children():
			_shift(c, shift)

func _first_particles(node):
	if node is Particles2D or node is CPUParticles2D:
		return node
	for c in node.get_children():
		var p = _first_particles(c)
		if p != null:
			return p
	return null

func _prepare(node):
	if node is Particles2D or node is CPUParticles2D:
		node.emitting = true
		node.visible = true
		if job == 0:
			var o = node.get_global_transform().origin
			print("particles ", node.name, " ", o.x, " ", o.y)
	elif node is CanvasItem:
		node.self_modulate = Color(1, 1, 1, 0)
	if node is AnimationPlayer:
		node.stop()
	for c in node.get_children():
		_prepare(c)

func _drawn():
	if top == null:
		return
	drawn += 1
	if targets.has(drawn):
		var img = get_root().get_texture().get_data()
		img.flip_y()
		img.save_png(out_pattern % [seeds[job], drawn])
	if drawn >= targets.max():
		_next()
